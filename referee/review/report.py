"""report.html: the review a person reads, one self-contained file that reads well on a phone.

A summary at the top (players, racks, fouls, winner), then shot by shot: the shooter, what
happened, the call with its reasons and clauses, anything the call rests on that is uncertain
or assumed, evidence frames and a top-down plot. Images are inlined (base64), CSS is inline,
nothing is fetched.
"""

from __future__ import annotations

import base64
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from typing import Any

from referee.review.history import Evidence

CSS = """
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
background:#f3f4f1;color:#1d2420}
main{max-width:760px;margin:0 auto;padding:12px}
h1{font-size:1.35rem;margin:.4rem 0}
h2{font-size:1.1rem;margin:0}
.card{background:#fff;border-radius:10px;padding:12px 14px;margin:12px 0;
box-shadow:0 1px 3px rgba(0,0,0,.12)}
.summary table{border-collapse:collapse;width:100%}
.summary td,.summary th{text-align:left;padding:4px 6px;border-bottom:1px solid #e4e6e1}
.badge{display:inline-block;border-radius:999px;padding:1px 9px;font-size:.8rem;
font-weight:600;margin-left:6px;vertical-align:middle}
.foul{background:#fde2e1;color:#9b1c17}.legal{background:#dff3e3;color:#1c6b34}
.review{background:#fff1cc;color:#7a5200}.win{background:#dbe8ff;color:#123f8c}
.meta{color:#59625c;font-size:.88rem}
ul{margin:.3rem 0 .3rem 1.1rem;padding:0}
.clause{font-weight:600;color:#33533d}
.flags{background:#fff8e5;border-left:4px solid #e0a800;padding:6px 10px;margin:8px 0}
.evidence{display:flex;gap:8px;overflow-x:auto;padding:4px 0}
.evidence figure{margin:0;flex:0 0 auto;width:min(72vw,300px)}
figure img{width:100%;border-radius:6px;display:block}
figcaption{font-size:.78rem;color:#59625c}
.plot{width:100%;border-radius:6px;margin-top:6px}
.note{color:#59625c;font-size:.9rem}
"""


@dataclass(frozen=True, slots=True)
class ShotView:
    """One shot as the report shows it.

    Attributes:
        shot: the shots.jsonl object.
        evidence: pictures cut while processing (strike, first contact, pockets).
        plot_png: the top-down plot, PNG bytes (None when there was nothing to draw).
    """

    shot: dict[str, Any]
    evidence: tuple[Evidence, ...] = ()
    plot_png: bytes | None = None


@dataclass(frozen=True, slots=True)
class ReportInput:
    """Everything the report shows.

    Attributes:
        title: the video's name.
        players: display names by player ("A", "B").
        summary: the summary.json object.
        shots: the shots in order.
        declarations_known: whether a declarations file was given.
    """

    title: str
    players: dict[str, str]
    summary: dict[str, Any]
    shots: tuple[ShotView, ...] = ()
    declarations_known: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def _name(players: dict[str, str], player: str | None) -> str:
    if player is None:
        return "?"
    name = players.get(player, player)
    return escape(name if name == player else f"{name} ({player})")


def _ball(value: Any) -> str:
    return "cue ball" if value in ("cue", 0) else f"the {value}"


def describe(facts: dict[str, Any], is_break: bool) -> list[str]:
    """What happened on a shot, in sentences, from its facts (rules.md §4 names)."""
    lines = []
    first = facts.get("first_object_ball_contacted")
    tie = facts.get("simultaneous_first_contact") or []
    if tie:
        names = " and ".join(_ball(b) for b in tie)
        lines.append(f"Cue ball hit {names} too close together to tell which first.")
    else:
        lines.append(
            "No object ball touched." if first is None else f"Cue ball hit {_ball(first)} first."
        )
    if facts.get("cue_ball_cushion_before_first_contact"):
        lines.append("The cue ball touched a cushion before any ball.")
    cushions = facts.get("cushion_after_first_contact") or []
    if first is not None:
        names = ", ".join(_ball(b) for b in cushions)
        lines.append(
            f"To a cushion after contact: {names}."
            if cushions
            else "No ball reached a cushion after contact."
        )
    if is_break and facts.get("object_balls_to_cushion_on_break") is not None:
        lines.append(
            f"Object balls to a cushion on the break: {facts['object_balls_to_cushion_on_break']}."
        )
    for pocketed in facts.get("pocketed") or []:
        where = str(pocketed.get("pocket") or "a pocket").replace("_", " ")
        lines.append(f"{_ball(pocketed.get('ball')).capitalize()} dropped in {where}.")
    if facts.get("cue_ball_pocketed"):
        lines.append("The cue ball dropped (scratch).")
    for key, text in (
        ("off_table", "left the table"),
        ("balls_disturbed", "moved with nothing touching it"),
        ("balls_moving_at_strike", "was still moving at the strike"),
    ):
        for ball in facts.get(key) or []:
            lines.append(f"{_ball(ball).capitalize()} {text}.")
    if facts.get("cue_ball_off_table"):
        lines.append("The cue ball left the table.")
    return lines


def _image(data: bytes, mime: str, alt: str, css_class: str = "") -> str:
    encoded = base64.b64encode(data).decode("ascii")
    klass = f' class="{css_class}"' if css_class else ""
    return f'<img{klass} alt="{escape(alt)}" src="data:{mime};base64,{encoded}">'


def _call_html(call: dict[str, Any] | None, players: dict[str, str]) -> str:
    if call is None:
        return "<p><b>No call</b>: the rules engine could not judge this shot (see below).</p>"
    parts = [f"<p><b>Call:</b> {escape(str(call.get('summary', '')))}</p><ul>"]
    for reason in call.get("reasons") or []:
        parts.append(
            f'<li><span class="clause">[{escape(reason["clause"])}]</span> '
            f"{escape(reason['text'])}</li>"
        )
    parts.append("</ul>")
    nxt = call.get("next_shooter")
    if nxt is not None:
        where = escape(str(call.get("cue_ball_next") or "").replace("_", " "))
        parts.append(f'<p class="meta">Next: {_name(players, nxt)}, cue ball {where}</p>')
    return "".join(parts)


def _badges(shot: dict[str, Any]) -> str:
    call = shot.get("call") or {}
    out = []
    if call.get("foul"):
        out.append(
            '<span class="badge foul">FOUL ' + escape(" ".join(call.get("fouls") or [])) + "</span>"
        )
    elif call:
        out.append('<span class="badge legal">legal</span>')
    if call.get("rack_winner"):
        out.append(f'<span class="badge win">rack won by {escape(call["rack_winner"])}</span>')
    if shot.get("review"):
        out.append('<span class="badge review">check</span>')
    return "".join(out)


def _shot_html(view: ShotView, players: dict[str, str]) -> str:
    shot = view.shot
    kind = "Break" if shot.get("is_break") else "Shot"
    head = (
        f'<section class="card" id="shot-{shot.get("shot")}"><h2>{kind} {shot.get("shot")} · '
        f"{_name(players, shot.get('shooter'))}{_badges(shot)}</h2>"
        f'<p class="meta">Rack {shot.get("rack", 1)} · '
        f"frames {shot.get('frame_strike')}–{shot.get('frame_end')} · "
        f"strike at {float(shot.get('time_strike_s', 0.0)):.2f} s · "
        f"confidence {float(shot.get('confidence', 1.0)):.2f}</p>"
    )
    happened = "".join(
        f"<li>{escape(line)}</li>"
        for line in describe(shot.get("facts") or {}, bool(shot.get("is_break")))
    )
    body = [
        head,
        f"<p><b>What happened</b></p><ul>{happened}</ul>",
        _call_html(shot.get("call"), players),
    ]
    flags = shot.get("review_reasons") or []
    if flags:
        items = "".join(f"<li>{escape(f)}</li>" for f in flags)
        body.append(f'<div class="flags"><b>Check this call:</b><ul>{items}</ul></div>')
    flagged = " ".join(flags)
    quiet = [a for a in shot.get("assumptions") or [] if a not in flagged]
    if quiet:
        items = "".join(f"<li>{escape(a)} (does not change the call)</li>" for a in quiet)
        body.append(f'<div class="note">Assumed:<ul>{items}</ul></div>')
    if view.evidence:
        figures = "".join(
            f"<figure>{_image(e.jpeg, 'image/jpeg', e.caption)}"
            f"<figcaption>{escape(e.caption)}</figcaption></figure>"
            for e in view.evidence
        )
        body.append(f'<div class="evidence">{figures}</div>')
    if view.plot_png is not None:
        body.append(
            _image(view.plot_png, "image/png", f"top-down plot of shot {shot.get('shot')}", "plot")
        )
    body.append("</section>")
    return "".join(body)


def _summary_html(report: ReportInput) -> str:
    shots = [v.shot for v in report.shots]
    fouls = Counter(s.get("shooter") for s in shots if (s.get("call") or {}).get("foul"))
    winners = [(s.get("rack", 1), (s.get("call") or {}).get("rack_winner")) for s in shots]
    rack_wins = Counter(w for _, w in winners if w)
    racks = max([s.get("rack", 1) for s in shots], default=0)
    rows = "".join(
        f"<tr><td>{_name(report.players, p)}</td><td>{fouls.get(p, 0)}</td>"
        f"<td>{rack_wins.get(p, 0)}</td></tr>"
        for p in ("A", "B")
    )
    leader = max(("A", "B"), key=lambda p: rack_wins.get(p, 0)) if rack_wins else None
    tied = len(set(rack_wins.values())) == 1 and len(rack_wins) == 2
    if leader is None:
        winner = "no rack finished"
    elif tied:
        winner = "level"
    else:
        winner = _name(report.players, leader)
    flagged = sum(1 for s in shots if s.get("review"))
    summary = report.summary
    lines = [
        f'<section class="card summary"><h1>{escape(report.title)}</h1>',
        f"<p><b>Winner:</b> {winner} · <b>Racks:</b> {racks} · <b>Shots:</b> {len(shots)} · "
        f"<b>Calls to check:</b> {flagged}</p>",
        f"<table><tr><th>Player</th><th>Fouls</th><th>Racks won</th></tr>{rows}</table>",
        f'<p class="meta">{summary.get("frames", 0)} frames at '
        f"{float(summary.get('fps') or 0):.0f} fps, "
        f"processed at {float(summary.get('frames_per_s') or 0):.0f} frames/s · "
        f"calibration: {escape(str((summary.get('calibration') or {}).get('source', '?')))}</p>",
    ]
    if not report.declarations_known:
        lines.append(
            '<p class="note">No declarations file: calls, option choices and warnings nobody '
            "recorded are assumed, and each assumption is stated on its shot.</p>"
        )
    lines += [f'<p class="note">{escape(n)}</p>' for n in report.notes]
    lines.append("</section>")
    return "".join(lines)


def render_report(report: ReportInput) -> str:
    """The whole report as one HTML document."""
    shots = "".join(_shot_html(v, report.players) for v in report.shots)
    if not report.shots:
        shots = '<section class="card"><p>No shot was seen in this video.</p></section>'
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(report.title)} · tenball review</title><style>{CSS}</style></head>"
        f"<body><main>{_summary_html(report)}{shots}</main></body></html>\n"
    )
