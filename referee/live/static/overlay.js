// The OBS overlay: scoreboard, balls on a table diagram, the latest call and camera outages.
"use strict";

(() => {
  const table = Tenball.createTable(document.getElementById("table-wrap"));
  const callBox = document.getElementById("call");
  let match = null;
  let hideTimer = null;

  function renderState(msg) {
    if (msg.table) table.setTable(msg.table);
    match = msg.match;
    // no match yet (OBS set up before the players came): no placeholder scoreboard on stream
    document.getElementById("top").classList.toggle("hidden", !match);
    if (!match) return;
    const rules = match.rules_state || {};
    for (const p of ["A", "B"]) {
      const box = document.getElementById(`player-${p}`);
      box.querySelector(".name").textContent = match.players[p];
      box.classList.toggle("turn", match.turn === p);
      const fouls = (rules.consecutive_fouls || {})[p] || 0;
      box.querySelector(".fouls").innerHTML = "<i></i>".repeat(fouls);
      box.classList.toggle("is-warned", !!(rules.warned || {})[p]);
      document.getElementById(`wins-${p}`).textContent = match.rack_wins[p];
    }
    document.getElementById("rack").textContent = `rack ${match.rack}${match.race_to ? ` · race to ${match.race_to}` : ""}`;
    renderStatus(rules, match.declarations || {});
  }

  function ballChip(number) {
    const chip = document.createElement("span");
    chip.className = number > 8 ? "chip striped" : "chip";
    chip.style.setProperty("--ball", Tenball.BALL_COLOURS[number]);
    chip.textContent = String(number);
    return chip;
  }

  // Under the scoreboard: the break, or the ball on (the lowest: it must be hit first),
  // then ball in hand, a push-out, an open option and the called shot.
  function renderStatus(rules, declared) {
    const box = document.getElementById("status");
    const parts = [];
    const on = Tenball.ballOn(rules);
    if (match.match_winner) {
      const w = match.rack_wins;
      parts.push(`${Tenball.playerName(match, match.match_winner)} wins the match ${w.A}–${w.B}`);
    } else if (match.rack_over) {
      const winner = ((match.last_call || {}).result || {}).rack_winner;
      parts.push(winner ? `${Tenball.playerName(match, winner)} wins rack ${match.rack}` : "rack over");
    } else if (rules.pending_option) {
      parts.push(`${Tenball.playerName(match, rules.pending_option.holder)} chooses: play or hand back`);
    } else if (rules.is_break) {
      parts.push(`${Tenball.playerName(match, rules.turn)} to break`);
    } else if (on !== null) {
      const item = document.createElement("span");
      item.append("on ", ballChip(on));
      parts.push(item);
      if (String(rules.cue_ball || "").startsWith("in_hand")) parts.push("ball in hand");
      if (rules.push_out_available) parts.push("push-out available");
      // a third foul in a row loses the rack: viewers are told who is on two
      if (((rules.consecutive_fouls || {})[rules.turn] || 0) >= 2) {
        parts.push(`${Tenball.playerName(match, rules.turn)} on two fouls`);
      }
    }
    if (!match.rack_over && declared.call && declared.call.ball) {
      const item = document.createElement("span");
      item.append("called ", ballChip(declared.call.ball), ` ${Tenball.POCKET_LABEL[declared.call.pocket] || declared.call.pocket}`);
      parts.push(item);
    }
    box.replaceChildren();
    parts.forEach((part, i) => {
      if (i) box.append(document.createElement("b"));
      const span = typeof part === "string" ? Object.assign(document.createElement("span"), { textContent: part }) : part;
      box.append(span);
    });
    box.classList.toggle("hidden", parts.length === 0);
  }

  function showCall(call) {
    const r = call.result || {};
    document.getElementById("call-headline").textContent = Tenball.callHeadline(call, match);
    document.getElementById("call-detail").textContent = Tenball.callDetail(call, match);
    callBox.classList.remove("foul", "win");
    if (r.foul) callBox.classList.add("foul");
    if (r.rack_winner) callBox.classList.add("win");
    callBox.classList.add("hidden");
    void callBox.offsetWidth;  // restart the slide-in
    callBox.classList.remove("hidden");
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => callBox.classList.add("hidden"), 12000);
  }

  function renderSource(s) {
    const box = document.getElementById("outage");
    const bad = ["stalled", "reconnecting", "failed"].includes(s.state);
    box.textContent = Tenball.sourceText(s);
    box.classList.toggle("hidden", !bad);
  }

  Tenball.connect((msg) => {
    if (msg.type === "state") renderState(msg);
    else if (msg.type === "call") showCall(msg);
    else if (msg.type === "balls") table.setBalls(msg.balls);
    else if (msg.type === "source_status") renderSource(msg);
  }, (up) => {
    if (!up) renderSource({ state: "reconnecting", message: "lost the referee service" });
    else renderSource({ state: "live" });
  });
})();
