"""Draw a group's report (:class:`~fr_graph.core.report.ReportData`) as one HTML page with
PNG charts, written atomically into a folder.

The page is ``index.html`` with its charts beside it in ``charts/`` (relative paths): no
script, no stylesheet or font from elsewhere, so it opens offline from any copy of the folder.
Separate PNG files rather than data URIs keep the HTML small and readable, let a chart be
reused on its own (in a ticket, in docs) and make a changed chart show as a changed file.

matplotlib (the ``report`` extra) is imported only here, only when a page is drawn, and never
through pyplot: each chart is a bare ``Figure`` on the Agg canvas, so drawing never touches
a display or matplotlib's global backend. Output is deterministic for the same data: fixed
sizes and dpi, sorted data, and PNGs saved without the ``Software`` tag (Agg writes no date).

The page is written into a temporary folder next to the target and moved into place, so a
failure leaves no half-written report; an earlier report in the target folder is replaced.
"""

from __future__ import annotations

import html
import importlib.util
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.report import ENDED_STATES, STATE_ORDER, ReportData, SlotChain
from fr_graph.errors import ConfigError, InputError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: What drawing the page imports from the ``report`` extra.
REPORT_EXTRA: Final = ("matplotlib",)
#: Marks a folder as an fr-graph report, which a new report may replace.
GENERATOR: Final = "fr-graph report"
INDEX: Final = "index.html"
CHARTS: Final = "charts"
DPI: Final = 100

STATE_COLORS: Final = {
    LifecycleState.ACTIVE: "#2e7d32", LifecycleState.SUPERSEDED: "#f9a825",
    LifecycleState.RETRACTED: "#c62828", LifecycleState.EXPIRED: "#6d4c41",
    LifecycleState.ARCHIVED: "#78909c",
}
CATEGORY_COLORS: Final = dict(zip(Category, (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8"), strict=True))
KIND_COLORS: Final = {"supersede": "#f9a825", "retract": "#c62828", "complete": "#2e7d32",
                      "soft": "#9e9e9e", "contradict": "#8e24aa", "reverted": "#bdbdbd"}
#: How many month labels an x axis shows at most.
MONTH_TICKS: Final = 12

STYLE: Final = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;
max-width:1100px;padding:0 1rem;color:#212121;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
.meta{color:#616161;margin-top:0}img{max-width:100%;height:auto;display:block;margin:.5rem 0}
table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem}
th,td{border:1px solid #ddd;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#f5f5f5}td.n{text-align:right;font-variant-numeric:tabular-nums}
.none{color:#757575;font-style:italic}code{font-size:.88rem}
"""


def require_report_extra() -> None:
    """Raise :class:`ConfigError` naming the ``report`` extra when matplotlib is missing."""
    missing = [name for name in REPORT_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise ConfigError(f"fr-graph report needs the 'report' extra ({', '.join(missing)} "
                          "not installed): pip install 'fr-graph[report]'")


def write_report(data: ReportData, out_dir: Path) -> Path:
    """Write the page and its charts into ``out_dir`` (created, or an earlier report there
    replaced) and return the path of ``index.html``.

    Raises:
        ConfigError: the ``report`` extra is not installed.
        InputError: ``out_dir`` is a file, a folder holding something other than a report,
            or cannot be written; nothing was written.
    """
    require_report_extra()
    target = Path(out_dir).absolute()
    _check_target(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as exc:
        raise InputError(f"report folder {str(out_dir)!r}: cannot write there "
                         f"({exc.strerror or exc})") from None
    try:
        scratch.chmod(0o755)  # mkdtemp's 0700 would make the moved report private
        _render(data, scratch)
        _move_into_place(scratch, target)
    except OSError as exc:
        raise InputError(f"report folder {str(out_dir)!r}: cannot write there "
                         f"({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target / INDEX


def _check_target(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise InputError(f"report folder {str(target)!r}: is a file")
    if target.is_dir() and any(target.iterdir()) and not _is_report(target):
        raise InputError(f"report folder {str(target)!r}: not empty and not an fr-graph "
                         "report (give a new or empty folder)")


def _is_report(folder: Path) -> bool:
    try:
        head = (folder / INDEX).read_text(encoding="utf-8")[:2000]
    except OSError:
        return False
    return f'<meta name="generator" content="{GENERATOR}">' in head


def _move_into_place(scratch: Path, target: Path) -> None:
    if not target.exists():
        scratch.rename(target)
        return
    # Two renames, not an in-place rewrite: the old report stays whole until the new one is.
    old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
    target.rename(old)
    try:
        scratch.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


# -- the page -----------------------------------------------------------------------------

def _render(data: ReportData, folder: Path) -> None:
    charts = folder / CHARTS
    charts.mkdir()
    sections = [
        _section("categories", "Facts by category over time",
                 _img(_chart(charts, "categories.png", _category_chart, data),
                      "Facts observed by the end of each month, by category")),
        _section("states", "Facts by state over time",
                 _img(_chart(charts, "states.png", _state_chart, data),
                      "Facts in each lifecycle state at the end of each month")),
        _section("transitions", "Transitions per month", _transitions(data, charts)),
        _section("decay", "Decay curves", _decay(data, charts)),
        _section("expiries", "Upcoming expiries", _expiries(data)),
        _section("chains", "Largest slot chains", _chains(data, charts)),
        _section("stages", "Stages and budget", _stages(data, charts)),
        _section("audit", "Audit log", _audit(data)),
    ]
    group = _e(data.group_id)
    page = "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta name="generator" content="{GENERATOR}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>fr-graph report: {group}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>fr-graph report: {group}</h1>",
        f'<p class="meta">as of {_e(_iso(data.now))} · {data.facts} facts · '
        f"{len(data.months)} months ({_e(data.months[0])} to {_e(data.months[-1])})</p>",
        _overview(data),
        *sections,
        "</body>",
        "</html>",
        "",
    ])
    (folder / INDEX).write_text(page, encoding="utf-8")


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(title)}</h2>\n{body}\n</section>'


def _img(name: str, alt: str) -> str:
    return f'<img src="{CHARTS}/{_e(name)}" alt="{_e(alt)}">'


def _none(text: str) -> str:
    return f'<p class="none">{_e(text)}</p>'


def _table(head: Sequence[str], rows: Sequence[Sequence[object]],
           numeric: Sequence[int] = ()) -> str:
    lines = ["<table>", "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr>"]
    for row in rows:
        cells = "".join(f'<td class="n">{_e(v)}</td>' if i in numeric else f"<td>{_e(v)}</td>"
                        for i, v in enumerate(row))
        lines.append(f"<tr>{cells}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _overview(data: ReportData) -> str:
    states = ", ".join(f"{s.value} {n}" for s, n in data.by_state.items())
    categories = ", ".join(f"{c.value} {n}" for c, n in data.by_category.items())
    return _table(("", "facts"), [("by state", states), ("by category", categories)])


def _transitions(data: ReportData, charts: Path) -> str:
    total = {s: sum(data.transitions[s]) for s in ENDED_STATES}
    summary = _table([s.value for s in ENDED_STATES], [[total[s] for s in ENDED_STATES]],
                     numeric=range(len(ENDED_STATES)))
    if not any(total.values()):
        return summary + _none("No fact has left the active state yet.")
    return summary + _img(_chart(charts, "transitions.png", _transition_chart, data),
                          "Facts superseded, retracted, expired and archived per month")


def _decay(data: ReportData, charts: Path) -> str:
    rows = [(c.category.value, f"{c.half_life_days:.1f}") for c in data.decay]
    return (_img(_chart(charts, "decay.png", _decay_chart, data),
                 "Activation exp(-lambda t) of each category, with its half-life")
            + "\n" + _table(("category", "half-life (days)"), rows, numeric=(1,)))


def _expiries(data: ReportData) -> str:
    if not data.expiries:
        return _none("No active fact has a coming expiry.")
    rows = [(_iso(e.at), e.why, e.category.value, e.text, e.uuid) for e in data.expiries]
    return _table(("when", "why", "category", "fact", "uuid"), rows)


def _chains(data: ReportData, charts: Path) -> str:
    if not data.chains:
        return _none("No slot holds more than one fact.")
    parts = []
    for number, chain in enumerate(data.chains, start=1):
        name = _chart(charts, f"chain-{number}.png", _chain_chart, chain)
        parts.append(f"<h3>{_e(chain.slot_key)} ({len(chain.nodes)} facts)</h3>")
        parts.append(_img(name, f"Facts of slot {chain.slot_key} and the links between them"))
    return "\n".join(parts)


def _stages(data: ReportData, charts: Path) -> str:
    rows = [(s.stage.value, s.live, s.active, s.inactive, s.pinned, s.archived,
             "unbounded" if s.capacity is None else s.capacity,
             "-" if s.use is None else f"{s.use:.0%}") for s in data.stages]
    table = _table(("stage", "live", "active", "inactive", "pinned", "archived", "capacity",
                    "use"), rows, numeric=range(1, 8))
    return _img(_chart(charts, "stages.png", _stage_chart, data),
                "Live and archived facts per retention stage, with capacities") + "\n" + table


def _audit(data: ReportData) -> str:
    audit = data.audit
    if not audit.records:
        return _none("No audit record: nothing of this group was purged.")
    actions = ", ".join(f"{action} {n}" for action, n in audit.by_action)
    head = (f"<p>{audit.records} records ({_e(actions)}), {audit.facts_deleted} facts "
            f"deleted, from {_e(audit.first_at or '?')} to {_e(audit.last_at or '?')}.</p>")
    rows = [(r.get("at") or "", r.get("action") or "", r.get("facts") or 0,
             len(r.get("target_uuids") or ()), r.get("reason") or "", r.get("id") or "")
            for r in audit.recent]
    return head + _table(("at", "action", "facts", "targets", "reason", "id"), rows,
                         numeric=(2, 3))


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _iso(moment: Any) -> str:
    return str(moment.strftime("%Y-%m-%dT%H:%M:%SZ"))


# -- the charts ---------------------------------------------------------------------------

def _chart(charts: Path, name: str, draw: Any, subject: Any) -> str:
    """Draw one chart with ``draw(subject) -> Figure`` and save it as ``charts/name``."""
    figure: Figure = draw(subject)
    figure.savefig(charts / name, format="png", dpi=DPI, metadata={"Software": None})
    return name


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _integer_ticks() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _month_axis(axes: Axes, months: Sequence[str]) -> None:
    step = max(1, -(-len(months) // MONTH_TICKS))
    ticks = list(range(0, len(months), step))
    axes.set_xticks(ticks, [months[i] for i in ticks], rotation=45, ha="right")
    axes.set_xlim(-0.5, len(months) - 0.5)


def _category_chart(data: ReportData) -> Figure:
    figure = _figure(10, 4)
    axes = figure.add_subplot()
    x = range(len(data.months))
    cats = list(data.category_timeline)
    axes.stackplot(x, *[data.category_timeline[c] for c in cats],
                   labels=[c.value for c in cats], colors=[CATEGORY_COLORS[c] for c in cats],
                   step="mid" if len(data.months) == 1 else None)
    axes.set_ylabel("facts observed")
    _month_axis(axes, data.months)
    axes.legend(loc="upper left", fontsize=8, ncols=2, frameon=False)
    return figure


def _state_chart(data: ReportData) -> Figure:
    figure = _figure(10, 4)
    axes = figure.add_subplot()
    x = range(len(data.months))
    axes.stackplot(x, *[data.state_timeline[s] for s in STATE_ORDER],
                   labels=[s.value for s in STATE_ORDER],
                   colors=[STATE_COLORS[s] for s in STATE_ORDER])
    axes.set_ylabel("facts")
    _month_axis(axes, data.months)
    axes.legend(loc="upper left", fontsize=8, frameon=False)
    return figure


def _transition_chart(data: ReportData) -> Figure:
    figure = _figure(10, 3.6)
    axes = figure.add_subplot()
    width = 0.8 / len(ENDED_STATES)
    for n, state in enumerate(ENDED_STATES):
        offset = (n - (len(ENDED_STATES) - 1) / 2) * width
        axes.bar([i + offset for i in range(len(data.months))], data.transitions[state],
                 width=width, label=state.value, color=STATE_COLORS[state])
    axes.set_ylabel("facts per month")
    axes.yaxis.set_major_locator(_integer_ticks())
    _month_axis(axes, data.months)
    axes.legend(loc="upper left", fontsize=8, frameon=False)
    return figure


def _decay_chart(data: ReportData) -> Figure:
    columns = 4
    rows = -(-len(data.decay) // columns)
    figure = _figure(12, 2.3 * rows)
    for n, curve in enumerate(data.decay):
        axes = figure.add_subplot(rows, columns, n + 1)
        color = CATEGORY_COLORS[curve.category]
        axes.plot(curve.ages_days, curve.activation, color=color)
        axes.axvline(curve.half_life_days, color="#616161", linestyle="--", linewidth=0.8)
        axes.axhline(0.5, color="#bdbdbd", linestyle=":", linewidth=0.8)
        axes.set_title(f"{curve.category.value}: half-life {_days(curve.half_life_days)}",
                       fontsize=9)
        axes.set_ylim(0, 1.02)
        axes.set_xlim(0, curve.ages_days[-1])
        axes.tick_params(labelsize=7)
        axes.set_xlabel("age (days)", fontsize=7)
    return figure


def _days(value: float) -> str:
    return f"{value:.1f} d" if value < 100 else f"{value:.0f} d"


def _chain_chart(chain: SlotChain) -> Figure:
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph()
    for node in chain.nodes:
        graph.add_node(node.uuid, layer=node.layer)
    for newer, older, kind in chain.edges:
        graph.add_edge(newer, older, kind=kind)
    # Layered by observed time, left to right: deterministic, no random seed involved.
    position = {node_id: (float(x), float(y)) for node_id, (x, y)
                in nx.multipartite_layout(graph, subset_key="layer").items()}
    layers = max(node.layer for node in chain.nodes) + 1
    per_layer = max(sum(n.layer == layer for n in chain.nodes) for layer in range(layers))
    figure = _figure(min(12.0, max(6.0, 2.4 * layers)), max(2.4, 1.1 * per_layer + 1.2))
    axes = figure.add_subplot()
    axes.set_axis_off()
    for newer, older, kind in chain.edges:
        axes.annotate("", xy=position[older], xytext=position[newer],
                      arrowprops={"arrowstyle": "-|>", "color": KIND_COLORS.get(kind, "#424242"),
                                  "shrinkA": 9, "shrinkB": 9,
                                  "connectionstyle": "arc3,rad=0.2"})
    for node in chain.nodes:
        x, y = position[node.uuid]
        axes.scatter([x], [y], s=160, color=STATE_COLORS[node.state], zorder=3,
                     edgecolors="#212121", linewidths=0.6)
        below = node.layer % 2 == 0
        axes.annotate(node.label, (x, y), xytext=(0, -14 if below else 12),
                      textcoords="offset points", ha="center",
                      va="top" if below else "bottom", fontsize=7, parse_math=False)
    xs = [p[0] for p in position.values()]
    ys = [p[1] for p in position.values()]
    pad_x = max(0.25, (max(xs) - min(xs)) * 0.15)
    axes.set_xlim(min(xs) - pad_x, max(xs) + pad_x)
    axes.set_ylim(min(ys) - 0.5, max(ys) + 0.5)
    states = sorted({n.state for n in chain.nodes}, key=STATE_ORDER.index)
    kinds = sorted({kind for _, _, kind in chain.edges})
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="", color=STATE_COLORS[s], label=s.value)
               for s in states]
    handles += [Line2D([], [], color=KIND_COLORS.get(k, "#424242"), label=f"{k or 'link'} →")
                for k in kinds]
    axes.legend(handles=handles, loc="upper left", fontsize=7, frameon=False,
                bbox_to_anchor=(1.0, 1.0))
    return figure


def _stage_chart(data: ReportData) -> Figure:
    figure = _figure(10, 2.8)
    axes = figure.add_subplot()
    names = [s.stage.value for s in data.stages]
    y = list(range(len(data.stages)))
    active = [s.active for s in data.stages]
    inactive = [s.inactive for s in data.stages]
    archived = [s.archived for s in data.stages]
    axes.barh(y, active, color=STATE_COLORS[LifecycleState.ACTIVE], label="active")
    axes.barh(y, inactive, left=active, color=STATE_COLORS[LifecycleState.SUPERSEDED],
              label="inactive (superseded, retracted, expired)")
    axes.barh(y, archived, left=[a + i for a, i in zip(active, inactive, strict=True)],
              color=STATE_COLORS[LifecycleState.ARCHIVED], label="archived from here",
              alpha=0.6)
    labelled = False
    for row, stage in zip(y, data.stages, strict=True):
        if stage.capacity is not None:
            axes.plot([stage.capacity] * 2, [row - 0.4, row + 0.4], color="#212121",
                      linewidth=2, label=None if labelled else "capacity")
            labelled = True
    axes.set_yticks(y, names)
    axes.invert_yaxis()
    axes.set_xlabel("facts")
    axes.xaxis.set_major_locator(_integer_ticks())
    axes.legend(loc="lower right", fontsize=8, frameon=False)
    return figure
