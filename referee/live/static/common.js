// Shared by the operator page and the overlay: the websocket, the table picture, wording.
// Plain browser JavaScript, no build step, nothing fetched from the internet.
"use strict";

const Tenball = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const BALL_COLOURS = {
    cue: "#f4f4f0", 1: "#f2c500", 2: "#1d4fd8", 3: "#d42020", 4: "#6b2a8f", 5: "#f07800",
    6: "#17803a", 7: "#7a1e1e", 8: "#111111", 9: "#f2c500", 10: "#1d4fd8",
  };
  const POCKETS = ["head_left", "head_right", "side_left", "side_right", "foot_left", "foot_right"];
  const POCKET_LABEL = {
    head_left: "head left", head_right: "head right", side_left: "side left",
    side_right: "side right", foot_left: "foot left", foot_right: "foot right",
  };

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // The table seen from above, head (break end) on the left: table x (0..L) runs left to
  // right and table y (0..W) top to bottom, so a player at the head looking at the foot has
  // the left cushion (y = 0) on his left, at the top of the picture.
  function pocketXY(name, table) {
    const L = table.length_mm, W = table.width_mm;
    return {
      head_left: [0, 0], head_right: [0, W], side_left: [L / 2, 0],
      side_right: [L / 2, W], foot_left: [L, 0], foot_right: [L, W],
    }[name];
  }

  function createTable(container, options) {
    const opts = Object.assign({ onPocket: null, onBall: null }, options || {});
    let table = { length_mm: 2540, width_mm: 1270 };
    const rail = 90;
    const uid = Math.random().toString(36).slice(2, 8);
    const svg = el("svg", { class: "table", role: "img", "aria-label": "table" }, container);
    const layers = {};
    let balls = [];
    let highlightedPocket = null, selectedBall = null, calledPocket = null;

    function toSvg(x, y) { return [x + rail, y + rail]; }

    function draw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      const L = table.length_mm, W = table.width_mm;
      svg.setAttribute("viewBox", `0 0 ${L + 2 * rail} ${W + 2 * rail}`);
      el("rect", { x: 0, y: 0, width: L + 2 * rail, height: W + 2 * rail, rx: 60, class: "rail" }, svg);
      el("rect", { x: rail, y: rail, width: L, height: W, class: "cloth" }, svg);
      const [hx] = toSvg(L / 4, 0);
      el("line", { x1: hx, y1: rail, x2: hx, y2: rail + W, class: "head-string" }, svg);
      const [fx, fy] = toSvg(3 * L / 4, W / 2);
      el("circle", { cx: fx, cy: fy, r: 9, class: "spot" }, svg);
      layers.pockets = el("g", {}, svg);
      for (const name of POCKETS) {
        const [px, py] = toSvg(...pocketXY(name, table));
        const g = el("g", { class: "pocket", "data-pocket": name, tabindex: 0 }, layers.pockets);
        el("circle", { cx: px, cy: py, r: 95, class: "pocket-target" }, g);
        el("circle", { cx: px, cy: py, r: 62, class: "pocket-hole" }, g);
        if (opts.onPocket) {
          g.addEventListener("click", () => opts.onPocket(name));
          g.addEventListener("keydown", (e) => { if (e.key === "Enter") opts.onPocket(name); });
        }
      }
      layers.balls = el("g", {}, svg);
      drawBalls();
      mark();
    }

    function drawBalls() {
      const layer = layers.balls;
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      const r = 28.6 * 1.6;  // drawn larger than life to read at overlay size
      for (const b of balls) {
        if (b.status && b.status !== "on_table" && b.status !== "occluded") continue;
        const [x, y] = toSvg(b.x_mm, b.y_mm);
        const g = el("g", { class: "ball", "data-ball": b.ball }, layer);
        const number = b.ball === "cue" ? null : Number(b.ball);
        const striped = number && number > 8;
        el("circle", { cx: x, cy: y, r, fill: striped ? "#fbfbf6" : (BALL_COLOURS[b.ball] || "#888"), class: "ball-body" }, g);
        if (striped) {
          const clip = el("clipPath", { id: `clip-${uid}-${b.ball}` }, g);
          el("circle", { cx: x, cy: y, r }, clip);
          el("rect", { x: x - r, y: y - r * 0.55, width: 2 * r, height: r * 1.1, fill: BALL_COLOURS[b.ball], "clip-path": `url(#clip-${uid}-${b.ball})` }, g);
        }
        if (number) {
          el("circle", { cx: x, cy: y, r: r * 0.5, fill: "#fff" }, g);
          const t = el("text", { x, y: y + r * 0.22, class: "ball-number", "font-size": r * 0.62 }, g);
          t.textContent = String(number);
        }
        if (b.status === "occluded") g.setAttribute("opacity", "0.5");
        if (opts.onBall && number) g.addEventListener("click", () => opts.onBall(number));
      }
      mark();
    }

    function mark() {
      for (const g of svg.querySelectorAll(".pocket")) {
        g.classList.toggle("armed", highlightedPocket === true);
        g.classList.toggle("called", g.dataset.pocket === calledPocket);
      }
      for (const g of svg.querySelectorAll(".ball")) {
        g.classList.toggle("selected", String(selectedBall) === g.dataset.ball);
      }
    }

    draw();
    return {
      setTable(t) {
        if (t && t.length_mm && (t.length_mm !== table.length_mm || t.width_mm !== table.width_mm)) {
          table = { length_mm: t.length_mm, width_mm: t.width_mm };
          draw();
        }
      },
      setBalls(list) { balls = list || []; drawBalls(); },
      armPockets(on) { highlightedPocket = on; mark(); },
      select(ball) { selectedBall = ball; mark(); },
      showCall(call) { calledPocket = call ? call.pocket : null; selectedBall = call ? call.ball : selectedBall; mark(); },
    };
  }

  // One websocket to /ws that reconnects with backoff; onStatus(true|false) on (dis)connect.
  function connect(onMessage, onStatus) {
    let delay = 500;
    function open() {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      const ws = new WebSocket(`${scheme}//${location.host}/ws`);
      ws.onopen = () => { delay = 500; onStatus && onStatus(true); };
      ws.onmessage = (e) => { try { onMessage(JSON.parse(e.data)); } catch (err) { console.error(err); } };
      ws.onclose = () => {
        onStatus && onStatus(false);
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 8000);
      };
    }
    open();
  }

  function playerName(match, p) {
    return match && match.players && match.players[p] ? match.players[p] : p;
  }

  // A few words per foul code (rules.md F and B), for people who do not know the codes.
  const FOUL_WORDS = {
    CASSE1_FIRST_CONTACT: "the break did not hit the 1 first",
    CASSE1_FOUR_CUSHIONS: "fewer than four balls to a cushion on the break",
    F1: "cue ball pocketed or off the table", F2: "wrong ball first", F3: "no cushion after contact",
    F4: "no foot on the floor", F5: "ball off the table", F6: "ball touched", F7: "double hit",
    F8: "push shot", F9: "ball still moving", F10: "cue ball placed wrong",
    F11: "cue laid on the table", F12: "played out of turn", F13: "slow play",
  };

  // The foul codes in the words of the rules ("F2", "Casse 1"), each once.
  function foulCodes(fouls) {
    return [...new Set((fouls || []).map((f) => (f.startsWith("CASSE1") ? "Casse 1" : f)))];
  }

  // One line for a call, e.g. "FOUL F2 – wrong ball first".
  function callHeadline(call, match) {
    const r = call.result || {};
    if (r.rack_winner) return `${playerName(match, r.rack_winner)} wins the rack`;
    if (r.foul) {
      const words = (r.fouls || []).map((f) => FOUL_WORDS[f] || f).join(", ");
      return `FOUL ${foulCodes(r.fouls).join(" ")}${words ? ` – ${words}` : ""}`;
    }
    if (r.option) return `Option to ${playerName(match, r.option.holder)}`;
    return r.turn_ends ? "Legal – turn passes" : "Legal – continues";
  }

  function callDetail(call, match) {
    const r = call.result || {};
    const parts = [];
    if (r.summary) parts.push(r.summary);
    else if (r.next_shooter) parts.push(`${playerName(match, r.next_shooter)} to shoot`);
    const saysSpot = (r.summary || "").includes("spotted");  // said once, not twice
    if (r.spot && r.spot.length && !saysSpot) parts.push(`spot the ${r.spot.join(", ")}`);
    return parts.join(" · ");
  }

  function sourceText(s) {
    if (!s || !s.state) return "";
    const text = {
      live: "camera live", ended: "video ended", stalled: "CAMERA STALLED",
      reconnecting: "CAMERA LOST – reconnecting", connecting: "connecting to camera",
      none: "no camera", failed: "CAMERA FAILED",
    }[s.state] || s.state;
    return s.message && s.state !== "live" ? `${text}: ${s.message}` : text;
  }

  // The ball a player must hit first: the lowest on the table (null when none is left).
  function ballOn(rules) {
    const left = (rules && rules.balls_on_table) || [];
    return left.length ? Math.min(...left) : null;
  }

  return { createTable, connect, callHeadline, callDetail, sourceText, playerName, ballOn, POCKETS, POCKET_LABEL, BALL_COLOURS, FOUL_WORDS };
})();
