// The replay viewer: a finished game step by step, through any seat's eyes as it saw
// the game at that moment, or with everything revealed (every seat's view side by
// side and the whole state), drawn by the same table components as live play. Beside
// it, the strongest bot's analysis: a bar chart of the current decision's moves and a
// line plot of each seat's estimated chances over the game (inline SVG).
//
// What each view shows comes from the server (GET /api/replays/CODE/GAME/steps/K?view=V),
// which makes it with the same observation and event functions as live play; the page
// only draws it. Links: /replay/CODE/GAME?move=K&view=all|spectator|N; /replay uploads a file.

import { api } from "./api.js";
import { clip, h, replace, s as svg, stylesheet, toast } from "./dom.js";
import { reasonRuns } from "./room/result.js";
import { loadTable, mountTable } from "./tables/load.js";
import { eventRuns, joinNames, readWords } from "./words.js";
import { t, tn } from "/static/i18n.js";

const SEAT_COLOURS = ["#b5472f", "#2f6db5", "#3b8a3e", "#8a5bb5", "#b58a2f", "#2fa3a3", "#b52f7a", "#6b6b6b", "#4a4ab5"];

function refused(main, title, message) {
  replace(
    main,
    h(
      "section",
      { class: "panel notice replay-refused", id: "replay-refused" },
      h("h1", {}, title),
      h("p", {}, message),
      h("p", {}, h("a", { href: "/", class: "button primary" }, t("Go to the lobby"))),
    ),
  );
}

// -- /replay: open a record file ---------------------------------------------------------------
export function showUpload(main) {
  stylesheet("/static/replay.css", "replay");
  document.title = t("Open a game record · apothecary");
  const input = h("input", { type: "file", id: "record-file", accept: ".json,application/json", "aria-label": t("A game record file") });
  const status = h("p", { class: "muted", role: "status" });
  input.addEventListener("change", async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    replace(status, t("Checking the record…"));
    try {
      const answer = await api.upload(await file.text());
      location.assign(answer.link);
    } catch (error) {
      replace(status, h("strong", { class: "bad", id: "upload-error" }, error.message));
    }
  });
  replace(
    main,
    h(
      "section",
      { class: "panel replay-upload" },
      h("h1", {}, t("Replay a game record")),
      h("p", {}, t("Choose a finished game's record (the JSON file that apothecary writes). It is checked move by move, then opens with every secret revealed.")),
      input,
      status,
    ),
  );
}

// -- /replay/CODE/GAME -------------------------------------------------------------------------
export async function showReplay(main, code, gameNo) {
  stylesheet("/static/replay.css", "replay");
  let facts;
  try {
    facts = await api.replay(code, gameNo);
  } catch (error) {
    if (error.code === "not_finished") refused(main, t("This game is not over"), error.message);
    else if (error.status === 404) refused(main, t("No such game"), error.message);
    else refused(main, t("The replay could not be opened"), error.message);
    return;
  }
  const game = await api.game(facts.game);
  new ReplayScreen(main, facts, game, await loadTable(game, facts.game)).start();
}

class ReplayScreen {
  constructor(main, facts, game, loaded) {
    this.main = main;
    this.facts = facts;
    this.game = game;
    this.loaded = loaded; // the table's module (tables/load.js)
    this.kind = loaded.kind;
    const query = new URLSearchParams(location.search);
    const move = parseInt(query.get("move") || "0", 10);
    this.step = Number.isFinite(move) ? Math.max(0, Math.min(facts.steps, move)) : 0;
    const view = query.get("view") || "all";
    this.view = view === "all" || view === "spectator" || (/^\d+$/.test(view) && Number(view) < facts.players) ? view : "all";
    this.tables = [];
    this.analysis = null;
    this.loading = 0;
  }

  // The name the room used ("Ann", "medium bot", "easy bot (seat 1)" for twins), as the server gives it.
  seatName(seat) {
    return (this.facts.names || [])[seat] || `seat ${seat}`;
  }

  // Words (their runs) as the room's log says them: "Ann deals to medium bot", a first
  // word that is not a name capitalised.
  named(runs) {
    return readWords(runs, (seat) => this.seatName(seat), { capital: true });
  }

  // The move list with everything revealed: each move as its mover read it (chance, as
  // a spectator did, with its outcome), from the last step's views.
  revealedMoves(end) {
    return this.facts.moves.map((move) => {
      const seen = move.actor >= 0 ? end.views[move.actor] : end.spectator;
      const event = (seen?.events || []).find((e) => e.step === move.step);
      if (!event) return [String(move.text || move.notation)];
      const runs = eventRuns(event);
      return move.actor >= 0 ? runs : [...runs, ` (${move.notation})`];
    });
  }

  start() {
    const f = this.facts;
    document.title = t("Replay of {game} · apothecary", { game: f.title });
    this.slider = h("input", { type: "range", id: "replay-slider", min: 0, max: f.steps, value: this.step, "aria-label": t("Move") });
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
    this.counter = h("span", { class: "replay-counter", id: "replay-counter", "aria-live": "polite" });
    const button = (id, label, words, to) => h("button", { type: "button", id, class: "quiet", "aria-label": words, title: words, onclick: () => this.go(to()) }, label);
    this.viewSelect = h(
      "select",
      { id: "replay-view", "aria-label": t("Whose eyes") },
      h("option", { value: "all" }, t("Everything revealed")),
      h("option", { value: "spectator" }, t("A spectator")),
      f.seats.map((_, seat) => h("option", { value: String(seat) }, t("{seat}, as they saw it", { seat: this.seatName(seat) }))),
    );
    this.viewSelect.value = this.view;
    this.viewSelect.addEventListener("change", () => {
      this.view = this.viewSelect.value;
      this.draw();
    });
    this.share = h("input", { type: "text", readonly: true, id: "replay-link", "aria-label": t("Link to this moment") });
    this.board = h("div", { class: "replay-board", id: "replay-board" });
    this.moves = h("ol", { class: "replay-moves", id: "replay-moves", start: "1" });
    this.movesView = null;
    this.movesByView = new Map();
    this.analysisBox = h("section", { class: "panel replay-analysis", id: "replay-analysis", "aria-label": t("Analysis") });
    const outcome = f.outcome || {};
    const winners = joinNames((outcome.winners || []).map((s) => this.seatName(s)));
    const reason = this.named(reasonRuns(outcome).length ? reasonRuns(outcome) : [t("The game is over")]);
    this.root = h(
      "div",
      { class: "replay", id: "replay", dataset: { game: f.game, table: this.kind } },
      h(
        "header",
        { class: "replay-head panel" },
        h("h1", {}, t("Replay: {game}, game {number}", { game: f.title, number: f.game_no })),
        h("p", { class: "muted" }, `${reason}${".!".includes(reason.at(-1)) ? "" : "."}`, winners ? ` ${t("Won by {winners}.", { winners })}` : ` ${t("Nobody won.")}`),
        h(
          "div",
          { class: "replay-controls" },
          button("replay-first", `« ${t("start")}`, t("To the start"), () => 0),
          button("replay-back", "◀", t("One move back"), () => this.step - 1),
          this.slider,
          button("replay-forward", "▶", t("One move on"), () => this.step + 1),
          button("replay-last", `${t("end")} »`, t("To the end"), () => f.steps),
          this.counter,
        ),
        h("p", { class: "replay-view-line" }, h("label", { for: "replay-view" }, t("Whose eyes:")), " ", this.viewSelect, " ", h("label", { for: "replay-link" }, t("Link:")), " ", this.share),
      ),
      h("div", { class: "replay-body" }, this.board, h("aside", { class: "replay-side" }, this.analysisBox, h("section", { class: "panel" }, h("h2", {}, t("Moves")), this.moves))),
    );
    replace(this.main, this.root);
    // On the document, not the replay: the arrows step as soon as the page opens,
    // before anything in it has the focus.
    document.addEventListener("keydown", (event) => this.arrowKey(event));
    this.drawAnalysis();
    this.draw();
  }

  arrowKey(event) {
    // The slider, the link box and the viewpoint menu use the arrow keys themselves,
    // and Alt+Left is the browser's Back.
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || event.target instanceof HTMLTextAreaElement) return;
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || !this.root.isConnected) return;
    if (event.key === "ArrowRight") this.go(this.step + 1);
    else if (event.key === "ArrowLeft") this.go(this.step - 1);
    else return;
    event.preventDefault();
  }

  go(step) {
    const next = Math.max(0, Math.min(this.facts.steps, step));
    if (next === this.step && this.frame) return;
    this.step = next;
    this.draw();
  }

  link() {
    const url = new URL(location.href);
    url.search = `?move=${this.step}&view=${this.view}`;
    return url.toString();
  }

  async draw() {
    const f = this.facts;
    const ticket = ++this.loading;
    this.slider.value = String(this.step);
    this.counter.textContent = t("move {step} of {steps}", { step: this.step, steps: f.steps });
    this.share.value = this.link();
    history.replaceState(null, "", this.link());
    this.markMove();
    let frame;
    try {
      frame = await api.replayStep(f.code, f.game_no, this.step, this.view);
    } catch (error) {
      toast(error.message, "error");
      return;
    }
    if (ticket !== this.loading) return; // a later move was asked for meanwhile
    this.frame = frame;
    this.root.replayFrame = frame;
    this.root.dataset.step = String(this.step);
    this.root.dataset.view = this.view;
    await this.drawBoard(frame);
    if (ticket !== this.loading) return;
    await this.drawMoves();
    this.drawDecision();
  }

  // The move list in words as the chosen viewpoint read them: everything revealed
  // shows each move as its mover read it; a seat or a spectator, as it read them
  // (the events of the game's last step, from the same log as live play).
  async drawMoves() {
    if (this.movesView === this.view) return this.markMove();
    let words = this.movesByView.get(this.view);
    if (!words) {
      const f = this.facts;
      try {
        const end = await api.replayStep(f.code, f.game_no, f.steps, this.view);
        words = this.view === "all" ? this.revealedMoves(end) : end.events.map((e) => eventRuns(e));
      } catch (error) {
        toast(error.message, "error");
        return;
      }
      this.movesByView.set(this.view, words);
    }
    this.movesView = this.view;
    this.moves.dataset.view = this.view;
    replace(
      this.moves,
      words.map((runs, i) =>
        h("li", { dataset: { step: String(i + 1) } }, h("button", { type: "button", class: "linkish", onclick: () => this.go(i + 1) }, this.named(runs))),
      ),
    );
    this.markMove();
  }

  markMove() {
    for (const item of this.moves.children) {
      const current = Number(item.dataset.step) === this.step;
      item.classList.toggle("current", current);
      // Keep the current move in sight inside the list (the page itself does not scroll).
      if (current) this.moves.scrollTop = item.offsetTop - this.moves.clientHeight / 2;
    }
  }

  unmount() {
    for (const table of this.tables) {
      try {
        table?.destroy?.();
      } catch (error) {
        console.error(error);
      }
    }
    this.tables = [];
  }

  async mount(slot, you, view) {
    const ctx = {
      game: this.game,
      options: this.facts.options,
      players: this.facts.players,
      you,
      seatName: (seat) => this.seatName(seat),
      seatLabel: (seat) => (seat === you ? t("{name} (you)", { name: this.seatName(seat) }) : this.seatName(seat)),
      act: () => {},
      prefersReducedMotion: true,
    };
    const { table } = await mountTable(this.loaded, slot, ctx);
    this.tables.push(table);
    const msg = { ...view, fresh: true, status: view.outcome ? "over" : "playing", game_no: this.facts.game_no, you, legal: [] };
    try {
      table.update?.(msg);
    } catch (error) {
      console.error("the table failed to draw this step", error);
    }
  }

  async drawBoard(frame) {
    this.unmount();
    replace(this.board);
    const area = (you, label) => {
      const slot = h("div", { class: "table-area", dataset: { table: this.kind } });
      const box = h("figure", { class: "replay-seat panel", dataset: { seat: you === null ? "spectator" : String(you) } }, h("figcaption", {}, label), slot);
      this.board.append(box);
      return slot;
    };
    if (frame.view === "all") {
      this.board.classList.add("replay-grid");
      const slots = frame.views.map((view, seat) => area(seat, `${this.seatName(seat)} sees`));
      this.board.append(
        h("details", { class: "panel replay-truth", id: "replay-truth", open: true }, h("summary", {}, t("The whole state")), h("pre", {}, frame.truth)),
      );
      await Promise.all(frame.views.map((view, seat) => this.mount(slots[seat], seat, view)));
    } else {
      this.board.classList.remove("replay-grid");
      const you = frame.view === "spectator" ? null : Number(frame.view);
      await this.mount(area(you, you === null ? t("A spectator sees") : t("{name} sees", { name: this.seatName(you) })), you, frame);
    }
  }

  // -- analysis ------------------------------------------------------------------------------------
  drawAnalysis() {
    const start = h("button", { type: "button", class: "primary", id: "analyse", onclick: () => this.analyse() }, t("Analyse with the strongest bot"));
    replace(
      this.analysisBox,
      h("h2", {}, t("Analysis")),
      h("p", { class: "muted" }, t("Every move's value for the seat that chose it, estimated from that seat's information only.")),
      start,
    );
  }

  async analyse() {
    const f = this.facts;
    this.progress = h("progress", { id: "analysis-progress", max: 1, value: 0 });
    this.progressText = h("span", { class: "muted" });
    this.chart = h("div", { class: "analysis-chart", id: "analysis-chart" });
    this.plot = h("div", { class: "analysis-plot", id: "analysis-plot" });
    replace(this.analysisBox, h("h2", {}, t("Analysis")), h("p", {}, this.progress, " ", this.progressText), this.chart, this.plot);
    try {
      let job = await api.analysis(f.code, f.game_no);
      for (;;) {
        this.analysis = job;
        this.progress.max = Math.max(1, job.total);
        this.progress.value = job.done;
        const exact = job.decisions.filter((d) => d.method === "solver").length;
        const how = t("{exact} exact, {estimated} estimated by {policy} playouts", { exact, estimated: job.decisions.length - exact, policy: job.plan.policy });
        this.progressText.textContent = job.status === "done" ? t("{total} decisions valued: {how}", { total: job.total, how }) : t("{done} of {total} decisions valued…", { done: job.done, total: job.total });
        this.analysisBox.dataset.status = job.status;
        this.drawDecision();
        this.drawPlot();
        if (job.status !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, 700));
        job = await api.analysis(f.code, f.game_no); // start-or-get: any server process answers
      }
      if (this.analysis.error) this.progressText.textContent = this.analysis.error;
    } catch (error) {
      this.progressText.textContent = error.message;
    }
  }

  // The decision shown: the one made at this step (the move that leads on from here).
  decisionHere() {
    const decisions = (this.analysis && this.analysis.decisions) || [];
    return decisions.find((d) => d.step >= this.step) || null;
  }

  drawDecision() {
    if (!this.chart) return;
    const d = this.decisionHere();
    if (!d) {
      replace(this.chart, h("p", { class: "muted" }, this.analysis && this.analysis.status === "done" ? t("No decision from here on.") : t("Not valued yet.")));
      return;
    }
    const moves = d.moves.slice(0, 12);
    const values = d.moves.map((m) => m.value);
    const top = Math.max(...values, 0);
    const bottom = Math.min(...values, 0);
    const span = top - bottom || 1;
    const row = 20;
    const width = 300;
    const labelWidth = 120;
    const chart = svg("svg", { viewBox: `0 0 ${width} ${moves.length * row + 6}`, class: "bars", role: "img", "aria-label": t("Values of {seat}'s choices at move {step}", { seat: this.seatName(d.seat), step: d.step + 1 }) });
    moves.forEach((m, i) => {
      const y = i * row + 3;
      const x0 = labelWidth + ((0 - bottom) / span) * (width - labelWidth - 40);
      const x1 = labelWidth + ((m.value - bottom) / span) * (width - labelWidth - 40);
      const played = d.played && m.action === d.played.action;
      chart.append(
        svg("text", { x: labelWidth - 4, y: y + 13, "text-anchor": "end", class: "bar-label" }, (played ? "▶ " : "") + clip(String(m.notation), 16)),
        svg("rect", { x: Math.min(x0, x1), y: y + 2, width: Math.max(1, Math.abs(x1 - x0)), height: row - 6, class: ["bar", played && "played", i === 0 && "best"].filter(Boolean).join(" ") }),
        svg("text", { x: Math.max(x0, x1) + 3, y: y + 13, class: "bar-value" }, m.value.toFixed(3)),
      );
    });
    const gap = d.gap === null || d.gap === undefined ? "" : ` ${t("Gap to the best: {gap}.", { gap: d.gap.toFixed(3) })}`;
    replace(
      this.chart,
      h("h3", {}, (d.method === "solver" ? t("Move {step}: {seat} (exact)", { step: d.step + 1, seat: this.seatName(d.seat) }) : t("Move {step}: {seat} (estimated)", { step: d.step + 1, seat: this.seatName(d.seat) }))),
      chart,
      h("p", { class: "muted", id: "analysis-gap" }, `${t("Played {played}; best {best}.", { played: d.played ? d.played.notation : "?", best: d.best.notation })}${gap}`, d.moves.length > moves.length ? ` ${tn("({count} more move not shown.)", "({count} more moves not shown.)", d.moves.length - moves.length)}` : ""),
    );
  }

  drawPlot() {
    const decisions = (this.analysis && this.analysis.decisions) || [];
    const points = decisions.filter((d) => Array.isArray(d.after));
    if (!points.length) {
      replace(this.plot);
      return;
    }
    const players = this.facts.players;
    const width = 300;
    const height = 140;
    const steps = Math.max(1, this.facts.steps);
    const top = Math.max(1, ...points.flatMap((d) => d.after));
    const x = (step) => 24 + (step / steps) * (width - 30);
    const y = (v) => height - 16 - (v / top) * (height - 26);
    const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chances", role: "img", "aria-label": t("Each seat's estimated chances over the game") });
    plot.append(
      svg("line", { x1: 24, y1: y(0), x2: width - 6, y2: y(0), class: "axis" }),
      svg("line", { x1: 24, y1: y(0), x2: 24, y2: y(top), class: "axis" }),
      svg("text", { x: 2, y: y(top) + 4, class: "tick" }, String(Math.round(top * 100) / 100)),
      svg("text", { x: 2, y: y(0) + 4, class: "tick" }, "0"),
    );
    for (let seat = 0; seat < players; seat += 1) {
      const path = points.map((d, i) => `${i ? "L" : "M"}${x(d.step + 1).toFixed(1)},${y(d.after[seat]).toFixed(1)}`).join(" ");
      plot.append(svg("path", { d: path, class: "chance-line", stroke: SEAT_COLOURS[seat % SEAT_COLOURS.length], "stroke-dasharray": seat >= SEAT_COLOURS.length ? "4 2" : null, dataset: { seat: String(seat) } }));
    }
    plot.append(svg("line", { x1: x(this.step), y1: y(0), x2: x(this.step), y2: y(top), class: "now" }));
    const legend = h(
      "ul",
      { class: "legend" },
      Array.from({ length: players }, (_, seat) => h("li", {}, h("span", { class: "swatch", style: { background: SEAT_COLOURS[seat % SEAT_COLOURS.length] } }, String(seat)), " ", this.seatName(seat))),
    );
    const heading = this.facts.players === 1 ? t("Each seat's expected score") : t("Each seat's estimated chance to win");
    replace(this.plot, h("h3", {}, heading), plot, legend);
  }
}
