// The operator page: every action is a POST with the operator token; the page redraws from
// the websocket, so two operators (or a refresh) always see the same match.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const FOULS = {
    no_foot_on_floor: "No foot on floor", ball_touched: "Ball touched", double_hit: "Double hit",
    push_shot: "Push shot", balls_moving: "Balls moving", bad_cue_ball_placement: "Bad placement",
    cue_on_table: "Cue on table", played_out_of_turn: "Out of turn", slow_play: "Slow play",
  };
  let match = null;
  let selectedBall = null;
  let announce10 = false;
  let rolling = false;  // a shot is being played: from the camera's strike to its end

  // ?token=... in the address is saved, then removed from it.
  const params = new URLSearchParams(location.search);
  if (params.get("token")) {
    localStorage.setItem("tenball-token", params.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  const token = () => localStorage.getItem("tenball-token") || "";
  if (!token()) $("token-panel").classList.remove("hidden");
  $("token-button").onclick = () => $("token-panel").classList.toggle("hidden");
  $("token-save").onclick = () => {
    localStorage.setItem("tenball-token", $("token-input").value.trim());
    $("token-panel").classList.add("hidden");
    toast("token saved");
  };

  let toastTimer = null;
  function toast(text, error) {
    const box = $("toast");
    box.textContent = text;
    box.classList.toggle("error", !!error);
    box.classList.remove("hidden");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => box.classList.add("hidden"), error ? 5000 : 2000);
  }

  // Alerts stay on the page until the operator taps them away (a toast is gone in seconds,
  // and the phone may be in a pocket when a camera drops or a shot goes uncalled).
  // The service keeps them too (with an id): OK dismisses one on every page, and a reloaded
  // page or a restarted service shows the ones not yet seen.
  function addAlert(text, id) {
    const list = $("alerts");
    for (const row of list.children) if (row.dataset.text === text) row.remove();
    const row = document.createElement("div");
    row.className = "alert";
    row.dataset.text = text;
    if (id !== undefined) row.dataset.id = id;
    const words = document.createElement("span");
    words.textContent = text;
    const ok = document.createElement("button");
    ok.textContent = "OK";
    ok.onclick = () => {
      row.remove();
      if (id !== undefined) post(`/api/alerts/${id}/dismiss`, {}, "alert dismissed");
    };
    row.append(words, ok);
    list.prepend(row);
    while (list.children.length > 5) list.lastChild.remove();
  }

  function errorText(status, body) {
    if (status === 401) return "wrong or missing operator token (tap 'token')";
    const detail = body && body.detail;
    if (Array.isArray(detail)) return detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ");
    return detail || `error ${status}`;
  }

  async function post(path, body, done) {
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token()}` },
        body: JSON.stringify(body || {}),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) { toast(errorText(response.status, data), true); return null; }
      // tapped while the balls still roll: kept for the shot after the one being played
      toast(data.for_next_shot ? `${done || "done"} (for the next shot)` : done || "done");
      return data;
    } catch (err) {
      toast(`service unreachable: ${err}`, true);
      return null;
    }
  }

  // A declaration tapped while the balls still roll: ask which shot it is for (the one
  // rolling, entered late, or the next one) instead of guessing.
  function declare(path, body, done) {
    if (!rolling) return post(path, body, done);
    movedAsked = null;  // this question takes the box
    const box = $("ask");
    box.querySelector("span").textContent = `Balls still rolling. ${done}: for which shot?`;
    $("ask-this").classList.remove("hidden");
    box.classList.remove("hidden");
    return new Promise((resolve) => {
      const answer = (which) => async () => {
        box.classList.add("hidden");
        resolve(await post(`${path}?for_shot=${which}`, body, done));
      };
      $("ask-this").onclick = answer("this");
      $("ask-next").onclick = answer("next");
    });
  }

  // The camera reports a strike a few frames late: what was tapped after the stroke, before
  // it said so, the service moved to the next shot. Ask, as for a tap while the balls roll;
  // "the shot rolling now" takes them back for it (and off the next shot).
  const DECLARE_PATH = {
    call: "/api/declare/call", push_out: "/api/declare/push-out", safety: "/api/declare/safety",
    break_announce_10: "/api/declare/break-10", clear_declarations: "/api/declare/clear",
  };
  function movedWords(m) {
    if (m.kind === "call") return `call: ${m.payload.ball} in ${Tenball.POCKET_LABEL[m.payload.pocket]}`;
    return { push_out: "push-out", safety: "safety", break_announce_10: "10 on the break", clear_declarations: "clear" }[m.kind] || m.kind;
  }
  // The question leaves every page once no moved declaration waits for the next shot any
  // more (another operator answered it, or it was undone).
  let movedAsked = null;
  function stillMoved(m, next) {
    if (m.kind === "call") return !!next.call && next.call.ball === m.payload.ball && next.call.pocket === m.payload.pocket;
    if (m.kind === "push_out") return !!next.push_out;
    if (m.kind === "safety") return !!next.safety_intended;
    if (m.kind === "break_announce_10") return !!next.break_announce_10;
    return true;
  }
  function closeAnswered() {
    if (!movedAsked || !match) return;
    const next = match.next_declarations || {};
    if (!movedAsked.some((m) => stillMoved(m, next))) { $("ask").classList.add("hidden"); movedAsked = null; }
  }
  function askMoved(moved) {
    movedAsked = moved;
    const box = $("ask");
    const said = moved.map(movedWords).join(", ");
    box.querySelector("span").textContent = `Tapped after the stroke: ${said}, kept for the next shot. For which shot?`;
    $("ask-this").classList.toggle("hidden", !rolling);
    box.classList.remove("hidden");
    $("ask-this").onclick = async () => {
      box.classList.add("hidden");
      movedAsked = null;
      if (!(await post("/api/declare/clear?for_shot=next", {}, "next shot cleared"))) return;
      for (const m of moved) await post(`${DECLARE_PATH[m.kind]}?for_shot=this`, m.payload, `${movedWords(m)} (the shot rolling now)`);
    };
    $("ask-next").onclick = () => { box.classList.add("hidden"); movedAsked = null; };
  }

  // Once the shot ends (its call comes), a question still open can only mean the next shot:
  // a call for the judged shot is a correction ('Correct the last call').
  function setRolling(now) {
    rolling = now;
    if (!now) $("ask-this").classList.add("hidden");
  }

  const table = Tenball.createTable($("table-wrap"), {
    onBall: (n) => pickBall(n),
    onPocket: (pocket) => pickPocket(pocket),
  });

  function pickBall(n) {
    selectedBall = selectedBall === n ? null : n;
    table.select(selectedBall);
    table.armPockets(selectedBall !== null || announce10);
    for (const b of $("balls").children) b.classList.toggle("selected", Number(b.dataset.ball) === selectedBall);
    $("call-hint").textContent = selectedBall ? `the ${selectedBall} in which pocket?` : "tap a ball, then a pocket";
  }

  async function pickPocket(pocket) {
    if (announce10) {
      announce10 = false;
      $("break10").classList.remove("on");
      table.armPockets(false);
      await declare("/api/declare/break-10", { pocket }, `10 announced in ${Tenball.POCKET_LABEL[pocket]}`);
      return;
    }
    if (selectedBall === null) { toast("tap a ball first", true); return; }
    const ball = selectedBall;
    await declare("/api/declare/call", { ball, pocket }, `called: ${ball} in ${Tenball.POCKET_LABEL[pocket]}`);
    pickBall(selectedBall);
  }

  $("break10").onclick = async () => {
    if (announce10) {  // second tap: the 10 without a pocket
      announce10 = false;
      $("break10").classList.remove("on");
      table.armPockets(false);
      await declare("/api/declare/break-10", {}, "10 announced");
      return;
    }
    announce10 = true;
    $("break10").classList.add("on");
    table.armPockets(true);
    toast("tap a pocket, or tap '10 on the break' again for any pocket");
  };

  for (let n = 1; n <= 10; n++) {
    const b = document.createElement("button");
    b.dataset.ball = n;
    b.style.background = n > 8 ? `linear-gradient(#fff 25%, ${Tenball.BALL_COLOURS[n]} 25% 75%, #fff 75%)` : Tenball.BALL_COLOURS[n];
    b.innerHTML = `<span>${n}</span>`;
    b.onclick = () => pickBall(n);
    $("balls").appendChild(b);
    for (const select of [$("c-first"), $("c-call-ball")]) {
      const opt = document.createElement("option");
      opt.value = n; opt.textContent = n;
      select.appendChild(opt);
    }
  }
  for (const pocket of Tenball.POCKETS) {
    const opt = document.createElement("option");
    opt.value = pocket; opt.textContent = Tenball.POCKET_LABEL[pocket];
    $("c-call-pocket").appendChild(opt);
  }
  for (const [name, label] of Object.entries(FOULS)) {
    const b = document.createElement("button");
    b.textContent = label;
    b.onclick = () => post("/api/foul", { foul: name }, `foul noted: ${label}`);
    $("fouls").appendChild(b);
  }
  for (const b of document.querySelectorAll("[data-post]")) {
    const send = b.dataset.post.startsWith("/api/declare/") ? declare : post;
    b.onclick = () => send(b.dataset.post, b.dataset.body ? JSON.parse(b.dataset.body) : {}, b.textContent);
  }
  for (const p of ["A", "B"]) $(`warn-${p}`).onclick = () => post("/api/warning", { player: p }, `${p} warned`);
  // A match still being played is not replaced by one tap: it stays stored either way, and
  // 'Back to the previous match' returns to it.
  const unfinished = () => match && !match.match_winner && match.shots > 0;
  for (const b of document.querySelectorAll("[data-start]")) {
    b.onclick = () => (unfinished() && !confirm(`${match.players.A} v ${match.players.B} is not over: start a new match?`)) || post("/api/match", {
      players: { A: $("m-A").value.trim() || "A", B: $("m-B").value.trim() || "B" },
      breaker: b.dataset.start,
      race_to: Number($("m-race").value) || null,
    }, "match started");
  }
  $("previous-match").onclick = async () => {
    const listed = await fetch("/api/matches").then((r) => r.json()).catch(() => null);
    const earlier = ((listed && listed.matches) || []).filter((id) => id !== listed.current);
    if (!earlier.length) { toast("no earlier match", true); return; }
    const id = Math.max(...earlier);
    if (unfinished() && !confirm(`${match.players.A} v ${match.players.B} is not over: go back to match ${id}?`)) return;
    post(`/api/matches/${id}/resume`, {}, `back to match ${id}`);
  };
  $("undo").onclick = async () => {
    const data = await post("/api/undo", {}, "undone");
    if (data && data.undone) toast(`undone: ${data.undone.kind}`);
  };
  // The facts of the correction form (fields left empty: the camera's, or none for a
  // missed shot).
  function formFacts() {
    const facts = {};
    const first = $("c-first").value;
    if (first === "none") facts.first_object_ball_contacted = null;
    else if (first) facts.first_object_ball_contacted = Number(first);
    const pocketed = $("c-pocketed").value.trim();
    if (pocketed) {
      facts.pocketed = pocketed.split(/[ ,]+/).filter(Boolean).map((item) => {
        const [ball, pocket] = item.split(":");
        return { ball: Number(ball), pocket };
      });
    }
    const cushion = $("c-cushion").value.trim();
    if (cushion) {
      facts.cushion_after_first_contact = cushion === "none" ? [] :
        cushion.split(/[ ,]+/).filter(Boolean).map((b) => (b === "cue" ? "cue" : Number(b)));
    }
    if ($("c-scratch").checked) facts.cue_ball_pocketed = true;
    return facts;
  }
  $("enter-shot").onclick = () => {
    post("/api/shot", { facts: formFacts(), reason: $("c-reason").value.trim() || "missed by the camera" }, "shot entered");
  };
  $("correct").onclick = () => {
    const body = { facts: formFacts(), reason: $("c-reason").value.trim() || "operator correction" };
    if ($("c-call-ball").value && $("c-call-pocket").value) {
      body.call = { ball: Number($("c-call-ball").value), pocket: $("c-call-pocket").value };
    }
    post("/api/correct", body, "call corrected");
  };

  function render(msg) {
    if (msg.table) table.setTable(msg.table);
    match = msg.match;
    if (!match) { $("turn-line").textContent = "No match: open 'New match' below."; return; }
    const rules = match.rules_state || {};
    for (const p of ["A", "B"]) {
      $(`p-${p}`).querySelector(".name").textContent = match.players[p];
      $(`p-${p}`).classList.toggle("turn", match.turn === p);
      const fouls = (rules.consecutive_fouls || {})[p] || 0;
      const warned = (rules.warned || {})[p];
      $(`p-${p}`).querySelector(".meta").textContent = `${fouls} foul${fouls === 1 ? "" : "s"}${warned ? " · warned" : ""}`;
      $(`s-${p}`).textContent = match.rack_wins[p];
      $(`warn-${p}`).disabled = fouls < 2 || warned;
      $(`warn-${p}`).textContent = `Warn ${match.players[p]}`;
    }
    $("rack-no").textContent = `rack ${match.rack}${match.race_to ? ` · race to ${match.race_to}` : ""}`;
    const option = rules.pending_option;
    $("option-card").classList.toggle("hidden", !option);
    if (option) $("option-who").textContent = `${Tenball.playerName(match, option.holder)} chooses`;
    const cue = (rules.cue_ball || "").replaceAll("_", " ");
    $("turn-line").textContent = match.match_winner
      ? `Match over: ${Tenball.playerName(match, match.match_winner)} wins ${match.rack_wins.A}–${match.rack_wins.B}.`
      : match.rack_over
      ? "Rack over: tap 'New rack'."
      : `${Tenball.playerName(match, match.turn)} to ${option ? "choose" : "shoot"} · cue ball ${cue}${rules.is_break ? " · break" : ""}${rules.push_out_available ? " · push-out allowed" : ""}`;
    const onTable = new Set(rules.balls_on_table || []);
    for (const b of $("balls").children) b.disabled = !onTable.has(Number(b.dataset.ball));
    const d = match.declarations || {};
    const said = declaredWords(d);
    const next = declaredWords(match.next_declarations || {});
    if (next.length) said.push(`next shot: ${next.join(", ")}`);
    $("declared").textContent = said.join(" · ");
    table.showCall(d.call);
    if (match.last_call) renderCall(match.last_call);
    closeAnswered();
  }

  function declaredWords(d) {
    const said = [];
    if (d.call) said.push(`call: ${d.call.ball} in ${Tenball.POCKET_LABEL[d.call.pocket]}`);
    if (d.push_out) said.push("push-out");
    if (d.break_announce_10) said.push(`10 on the break${d.break_announce_10_pocket ? " in " + Tenball.POCKET_LABEL[d.break_announce_10_pocket] : ""}`);
    if (d.safety_intended) said.push("safety");
    if ((d.referee_fouls || []).length) said.push(`fouls: ${d.referee_fouls.map((f) => FOULS[f] || f).join(", ")}`);
    return said;
  }

  function renderCall(call) {
    const box = $("last-call");
    box.classList.remove("hidden");
    box.classList.toggle("foul", !!(call.result || {}).foul);
    box.querySelector(".headline").textContent = `Shot ${call.shot}: ${Tenball.callHeadline(call, match)}${call.corrected ? " (corrected)" : ""}`;
    box.querySelector(".detail").textContent = Tenball.callDetail(call, match);
    // the camera's doubts (weak facts, frames the machine could not analyse): a person looks
    const doubts = call.corrected ? [] : (call.review_reasons || []);
    const check = box.querySelector(".check");
    check.textContent = doubts.length ? `⚠ check: ${doubts.join("; ")}` : "";
    check.classList.toggle("hidden", !doubts.length);
  }

  function renderSource(s) {
    const pill = $("source");
    pill.textContent = Tenball.sourceText(s);
    pill.className = `pill ${["live", "ended", "none"].includes(s.state) ? "ok" : "bad"}`;
  }

  Tenball.connect((msg) => {
    if (msg.type === "state") { if ("shot_rolling" in msg) setRolling(msg.shot_rolling); render(msg); }
    else if (msg.type === "event" && (msg.kind === "strike" || msg.kind === "shot_end")) setRolling(msg.kind === "strike");
    else if (msg.type === "moved_to_next_shot") askMoved(msg.moved);
    else if (msg.type === "call") { renderCall(msg); toast(Tenball.callHeadline(msg, match), !!(msg.result || {}).foul); }
    else if (msg.type === "balls") table.setBalls(msg.balls);
    else if (msg.type === "source_status") renderSource(msg);
    else if (msg.type === "alert") { toast(msg.message, true); addAlert(msg.message, msg.id); }
    else if (msg.type === "alert_dismissed") { for (const row of $("alerts").querySelectorAll(`[data-id="${msg.id}"]`)) row.remove(); }
  }, (up) => {
    $("conn").textContent = up ? "connected" : "reconnecting…";
    $("conn").className = `pill ${up ? "ok" : "bad"}`;
  });
})();
