"""Async orchestration: parse -> classify -> embed -> store -> retrieve -> rerank."""
