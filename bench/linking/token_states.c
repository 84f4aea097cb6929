/* Bench-only: the final per-token hidden states of the bundled e5 engine (the wheel's own
 * e5.c, included unchanged), which its API only exposes pooled. */
#include "e5.c"

int e5x_token_states(e5_model *m, const char *text, int is_query, float *out, int max_tokens) {
    const char *pfx = is_query ? "query: " : "passage: ";
    size_t plen = strlen(pfx), tl = strlen(text);
    char *buf = (char *)malloc(plen + tl + 1);
    memcpy(buf, pfx, plen); memcpy(buf + plen, text, tl + 1);
    int cap = (int)(plen + tl) + 4;
    int *cont = (int *)malloc(sizeof(int) * (cap > 1 ? cap : 1));
    int nc = tok_content(&m->tok, buf, cont, cap);
    free(buf);
    if (nc > m->MAXP - 2) nc = m->MAXP - 2;
    if (nc + 2 > max_tokens) nc = max_tokens - 2;
    int L = nc + 2;
    int *ids = (int *)malloc(sizeof(int) * L), *pos = (int *)malloc(sizeof(int) * L);
    int *ss = (int *)malloc(sizeof(int) * L), *se = (int *)malloc(sizeof(int) * L);
    int segoff[2] = {0, L};
    ids[0] = m->tok.bos; pos[0] = 0;
    for (int j = 0; j < nc; j++) { ids[1 + j] = cont[j]; pos[1 + j] = 1 + j; }
    ids[L - 1] = m->tok.eos; pos[L - 1] = L - 1;
    for (int t = 0; t < L; t++) { ss[t] = 0; se[t] = L; }
    forward_batch(m, ids, pos, ss, se, segoff, 1, L, NULL, out);
    free(cont); free(ids); free(pos); free(ss); free(se);
    return L;
}

/* The same, after only the first `layers` encoder layers (0 = the embeddings' output). */
int e5x_token_states_upto(e5_model *m, const char *text, int is_query, float *out,
                          int max_tokens, int layers) {
    int all = m->NL;
    if (layers < 0 || layers > all) return -1;
    m->NL = layers;  /* forward_batch runs m->NL layers; restored below (not thread-safe) */
    int n = e5x_token_states(m, text, is_query, out, max_tokens);
    m->NL = all;
    return n;
}
