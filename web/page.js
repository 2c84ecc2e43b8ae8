// The web page's shell: it feeds the core's machine (run by MicroPython in
// this page, see bridge.py) the visitor's events with the browser's clock,
// and draws the commands that come back. What a machine is (its controls,
// lamps, settings and their choices) is asked of the machine itself; this
// file knows only how each thing looks and what it is called in words.
//
// Every text a visitor reads comes from the catalogs (language/LL.json, made from the
// same .po files as the Python shells' catalogs): `_()` for the page's own, `message()`
// for what the machine says (its message ids, language/messages.json), chosen by
// ?lang=, the language buttons, else the browser's language (a kiosk: its first).
//
// With ?follow=EXHIBIT&broker=ws://HOST:PORT/ the page is a second screen beside a
// physical exhibit: it takes the exhibit's live game from the museum's MQTT broker
// (docs/telemetry.md), restores the machine from its state and replays its events,
// and never sends anything.

const params = new URLSearchParams(location.search);
const kiosk = params.get("kiosk") === "1";
const following = params.has("follow");
const SVG = "http://www.w3.org/2000/svg";
const BLINK_MS = 500;
const MESSAGES_KEPT = 20;
const LOG_KEPT = 30;
// What the live region said, kept for the tests (nim.announced): a game's worth, never a kiosk's months.
const ANNOUNCED_KEPT = 100;
// The largest message taken from the broker (an exhibit's state is about 1 KB).
const LIVE_LIMIT = 16384;
// How often the page tries the broker again, and how long one try may take.
const RECONNECT_MS = 2000, CONNECT_TIMEOUT_MS = 5000;
// The exhibit's clock as the page reckons it: each message gives a bound, kept over two windows.
const CLOCK_WINDOW_MS = 300000;
// How long a language pressed may take to come (its catalog, about 10 KB) before the page says it cannot.
const LANGUAGE_WAIT_MS = 10000;

// --- the visitor's language ------------------------------------------------------------
let lang = { code: "en", plural: "(n != 1)", group: ",", dir: "ltr", texts: {} };
let pluralOf = (n) => (n !== 1 ? 1 : 0);
let ids = {};               // the core's message ids: [English, English plural or null, the value that counts]

// A text of the page in the visitor's language (its English when the catalog has none).
function _(text) {
  const forms = lang.texts[text];
  return forms ? forms[0] : text;
}

// A text with a number: the language's plural form for `count`.
function _n(singular, plural, count) {
  const forms = lang.texts[singular];
  if (forms) return forms[Math.min(pluralOf(count), forms.length - 1)];
  return count === 1 ? singular : plural;
}

// A text with a context (the same English, said another way elsewhere).
function _p(context, text) {
  const forms = lang.texts[context + "\u0004" + text];
  return forms ? forms[0] : text;
}

// A whole number as the language writes it (its digits grouped with the language's separator).
function num(value) {
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+(?!\d))/g, lang.group);
  return (value < 0 ? "-" : "") + digits;
}

// `text` with its %(name)d and %(name)s filled from `values`: the catalogs' placeholders (Python's).
function fmt(text, values) {
  return text.replace(/%(?:\((\w+)\)(-?\d*)([ds])|%)/g, (all, name, width, kind) => {
    if (name === undefined) return "%";
    const value = values[name];
    let shown = kind === "d" && Number.isInteger(value) ? num(value) : String(value);
    const size = Math.abs(Number(width || 0));
    if (shown.length < size) shown = width.startsWith("-") ? shown.padEnd(size) : shown.padStart(size);
    return shown;
  });
}

// A name, an address or an English problem put into a sentence written right to left, set apart from it
// (Unicode's first-strong isolate): ws://hall.lan:9001/ keeps its slash at its end instead of the slash
// going to the far side of the address. A page written left to right is left as it was.
function apart(value) {
  return lang.dir === "rtl" ? "\u2068" + value + "\u2069" : String(value);
}

// What the machine says: a message id with its values, in the visitor's language.
function message(id, values) {
  values = values || {};
  const known = ids[id];
  if (!known) return [id].concat(Object.keys(values).sort().map((key) => key + "=" + values[key])).join(" ");
  const [singular, plural, count] = known;
  const forms = lang.texts[id + "\u0004" + singular];
  let text;
  if (plural === null) text = forms ? forms[0] : singular;
  else if (forms) text = forms[Math.min(pluralOf(values[count]), forms.length - 1)];
  else text = values[count] === 1 ? singular : plural;
  return fmt(text, values);
}

// The tests' pseudo-locales (tests/pseudo_locale.py) tagged as Chromium tags its own: accented English, and
// English written right to left.
const PSEUDO_TAGS = { qps: "en-XA", qpb: "ar-XB" };

// Language `code`'s catalog, or an Error naming its file. `waitMs`: how long it may take to come whole (a
// language pressed: a laptop gone to sleep answers nothing, and a browser waits minutes before it gives up).
async function fetchCatalog(code, waitMs) {
  const file = "language/" + code + ".json";
  const giveUp = new AbortController();
  const timer = waitMs ? setTimeout(() => giveUp.abort(), waitMs) : null;
  try {
    const response = await fetch(file, { signal: giveUp.signal });
    if (!response.ok) throw new Error(`${file}: ${response.status} ${response.statusText}`);
    return await response.json();
  } catch (error) {
    throw giveUp.signal.aborted ? new Error(`${file}: no answer in ${waitMs / 1000} s`) : error;
  } finally {
    clearTimeout(timer);
  }
}

async function loadLanguage(code) {
  useLanguage(code, await fetchCatalog(code));
}

// The page's language from now on: `catalog`, language `code`'s (the page's texts are drawn again after).
function useLanguage(code, catalog) {
  lang = catalog;
  try {
    pluralOf = pluralRule(lang.plural);
  } catch (error) {
    pluralOf = pluralRule("(n != 1)");
  }
  document.documentElement.lang = PSEUDO_TAGS[code] || code;
  // Arabic, Hebrew, Persian: the page's words, buttons, lists and settings run right to left (the catalog
  // says, as Babel knows it). The machines' drawings do not turn with them (page.css, #board).
  document.documentElement.dir = lang.dir === "rtl" ? "rtl" : "ltr";
  window.nim.language = code;
}

// The catalog's plural rule, a C expression of n (gettext's Plural-Forms, as Babel writes it, such as
// "(n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2)"), as a function of n. Read here, not compiled with
// new Function: the page's Content-Security-Policy (controller/web/serve.py) allows no eval.
function pluralRule(rule) {
  const tokens = [];
  const token = /\s*(n|[0-9]+|&&|\|\||[=!<>]=|[<>!?:%+()-])/y;
  while (String(rule).slice(token.lastIndex).trim()) {
    const found = token.exec(rule);
    if (!found) throw new Error("not a plural rule: " + rule);
    tokens.push(found[1]);
  }
  let at = 0;
  const take = (expected) => {
    if (tokens[at] !== expected) throw new Error("not a plural rule: " + rule);
    at += 1;
  };
  const LEVELS = [["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["+", "-"], ["%"]];
  const OPERATORS = { "||": (a, b) => +(!!a || !!b), "&&": (a, b) => +(!!a && !!b), "==": (a, b) => +(a === b),
    "!=": (a, b) => +(a !== b), "<": (a, b) => +(a < b), ">": (a, b) => +(a > b), "<=": (a, b) => +(a <= b),
    ">=": (a, b) => +(a >= b), "+": (a, b) => a + b, "-": (a, b) => a - b, "%": (a, b) => (b ? a % b : 0) };
  const choice = () => {
    const test = binary(0);
    if (tokens[at] !== "?") return test;
    at += 1;
    const yes = choice();
    take(":");
    const no = choice();
    return (n) => (test(n) ? yes(n) : no(n));
  };
  const binary = (level) => {
    if (level === LEVELS.length) return single();
    let left = binary(level + 1);
    while (LEVELS[level].includes(tokens[at])) {
      const operator = OPERATORS[tokens[at]], first = left;
      at += 1;
      const second = binary(level + 1);
      left = (n) => operator(first(n), second(n));
    }
    return left;
  };
  const single = () => {
    const word = tokens[at];
    at += 1;
    if (word === "!") {
      const negated = single();
      return (n) => +!negated(n);
    }
    if (word === "(") {
      const inner = choice();
      take(")");
      return inner;
    }
    if (word === "n") return (n) => n;
    if (/^[0-9]+$/.test(word || "")) return () => Number(word);
    throw new Error("not a plural rule: " + rule);
  };
  const whole = choice();
  if (at !== tokens.length) throw new Error("not a plural rule: " + rule);
  return (n) => Number(whole(n));
}

// How things are called and coloured (the terminal simulator's colours).
const LAMP_COLOURS = {
  your_turn: "#4cd964", drnim_turn: "#ffcc00", fault: "#ff3b30", you_win: "#35c8ff", drnim_wins: "#ff9f0a",
  machine_turn: "#ffcc00", nim_champ: "#ffd700", machine_wins: "#ff3b30",
};
function lampName(name) {
  return { your_turn: _("your turn"), drnim_turn: _("Dr. Nim's turn"), fault: _("fault"), you_win: _("you win"),
    drnim_wins: _("Dr. Nim wins"), machine_turn: _("the Nimatron's turn"), nim_champ: _("NIM CHAMP"),
    machine_wins: _("the Nimatron wins") }[name] || name.replace(/_/g, " ");
}
function lampState(state) {
  return { on: _p("lamp", "on"), off: _p("lamp", "off"), blink: _p("lamp", "blinking") }[state] || state;
}
function controlName(role) {
  return { trigger: _("Trigger"), new_game: _("New game"), handover: _("Hand over") }[role] || role;
}
// A switch's two sides in words: [the left side, the right side].
function switchSides(role) {
  return { turn_switch: [_("Dr. Nim"), _p("turn switch", "you")],
    equalizer_switch: [_p("equalizer switch", "off"), _p("equalizer switch", "armed")] }[role] || ["left", "right"];
}
// A switch moved to each side, in words (a whole text each: "to you" is not "you" in every language).
function switchTo(role) {
  return { turn_switch: [_("Turn switch to Dr. Nim"), _("Turn switch to you")] }[role];
}
function switchName(role) {
  return { turn_switch: _("Turn switch"), equalizer_switch: _("Equalizer switch") }[role] || role;
}
// Keys, as in the terminal simulator: a key for a button, or for a switch's side.
const KEYS = {
  trigger: [" ", "t"], new_game: ["n"], handover: ["h", "Enter"],
  turn_switch: { on: ["m"], off: ["p"], toggle: ["s"] }, equalizer_switch: { toggle: ["e"] },
};
const VISITOR_SETTINGS = {
  drnim: ["first", "marbles", "equalizer", "rule", "opponent"],
  nimatron: ["first", "rule", "opening", "opponent"],
};
function settingName(key) {
  return { first: _("Who goes first"), equalizer: _("Equalizer switch at armed"), rule: _("Rule"),
    opening: _("Opening"), opponent: _("How the machine plays"),
    // Translators: the settings' list of how many marbles Dr. Nim's game begins with on its rail (1 to 15)
    marbles: _("Marbles on the rail") }[key] || key;
}
function choiceName(value) {
  return { either: _("either (you decide)"), player: _p("who goes first", "you"), machine: _("the machine"),
    random: _("at random"), "last-loses": _("whoever takes the last one loses"),
    "last-wins": _("whoever takes the last one wins"), historic: _("its own marble logic (historic)"),
    perfect: _("perfect"), "perfect:random": _("perfect, random when losing"),
    "fallible:0.1": _("fallible (a random move one time in ten)"), sinclair: _("the Sinclair calculator (1977)"),
    nimx: _("Nimx (BASIC)"), applet: _("the 2003 applet"), praxis: _("Programming Praxis (2010)") }[value] || value;
}

// The machine's sound cues as short tunes: [frequency in Hz, milliseconds] each note.
const CUES = {
  marble: [[880, 40]], lamp: [[660, 50]], refuse: [[220, 160]], extra: [[500, 80]],
  fault: [[180, 200], [140, 300]], new_game: [[523, 90], [659, 90], [784, 120]],
  win: [[523, 120], [659, 120], [784, 120], [1047, 300]], lose: [[392, 160], [330, 160], [262, 320]],
};
CUES.nim_champ = CUES.win;

const $ = (id) => document.getElementById(id);
const now = () => Math.round(performance.now());
let bridge = null;
let machines = {};
let decl = null;            // the running machine's declarations
let view = null;            // the machine's view after the last answer
let outputs = {};           // every output's last setting: "flip_flop/1" -> "left", "row/2" -> 3, ...
let timer = null;
let animating = false;
let touched = false;        // a visitor used the machine since it was last reset (the kiosk's reset)
let warning = null;         // the timer of the kiosk's reset once it warned a visitor still playing
let keptAt = null;          // when a press answered that warning, playing nothing: none before the machine's idle time
let answering = false;      // the key or press under way answered the warning: it plays no move
let focusedAtWarning = null;  // what had the focus when the warning came (given back should its banner take it)
// A switch's words in the address, as a simulator script writes them (core/scenario.py's SWITCH_WORDS), for a machine's
// setting and the page's own options alike: a script's equalizer=off was refused, which took only true and false.
const SWITCH_WORDS = { true: true, on: true, yes: true, false: false, off: false, no: false };
// What the address asked of the page and did not get, said with the settings the machine refused (boot): a kiosk's
// sound=of or warn_ms=1min played its default without a word.
const optionProblems = [];

// The page's own on/off option `name` of the address: on unless it says off.
function switchOption(name) {
  const text = params.get(name);
  if (text === null || Object.hasOwn(SWITCH_WORDS, text)) return text === null || SWITCH_WORDS[text];
  optionProblems.push(`${name}: ${text.slice(0, 40)} is not on or off: on is used`);
  return true;
}

const warnFits = /^[0-9]{1,7}$/.test(params.get("warn_ms") || "");
const warnMs = warnFits ? Number(params.get("warn_ms")) : 20000;
if (params.get("warn_ms") !== null && !warnFits) {
  optionProblems.push(`warn_ms: ${params.get("warn_ms").slice(0, 40)} is not a whole number of milliseconds (such as `
                      + "60000): 20000 is used");
}
let wasResting = false;     // the machine was resting between visitors at the last answer (restingForNext)
let audio = null;           // made at the first cue: a browser lets a page sound only after a visitor acts
let soundOn = switchOption("sound");
// The single-key shortcuts (KEYS), on unless the address says keys=off: the Shortcut keys button turns them off
// (WCAG 2.1.4) for a visitor whose speech input types stray letters, or who scrolls with Space. A kiosk turns
// them back on as its address says for each visitor: its keyboard or keypad plays by them.
const shortcutsAsked = switchOption("keys");
// The working ("why the machine moved") gives the winning move at every turn: on a projector asking "can you beat
// the machine?", working=off starts it hidden, and its button shows it when the room has tried.
let workingShown = switchOption("working");
let shortcutsOn = shortcutsAsked;
let offered = ["en"];       // the languages a visitor may choose (the build's), the museum's first first
let home = "en";            // the language a kiosk goes back to for the next visitor
let said = [];              // what the machine said, newest first: [id, values] or [text, "error"]
let pending = [];           // what the live region announces after this answer
let before = null;          // the view before this answer: what changed is announced
const chosen = {};          // the visitor's settings, by machine
const drafts = {};          // settings chosen but not yet played (a new game with them only when the visitor asks)
const keptGames = {};       // what the page drew of each machine's game while the other is shown (switchMachine)
let settingProblem = null;  // the setting the machine refused, in words (a function: drawn again in a new language)
let settingText = "";       // and the refusal itself, as the machine said it
const parts = {};           // the drawing's elements that change

window.nim = { ready: false, firstFrameMs: null, errors: [], stages: {}, log: [], drawn: [], announced: [] };
let languageNames = {};     // each language named in itself: the build says (files.json), or its catalog
let languageDirections = {};  // and the way it is written, for its button: "ltr" or "rtl"

function element(tag, attrs, parent, text) {
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const key in attrs || {}) if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, attrs[key]);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

// A list that scrolls is a tab stop, so that a keyboard can scroll it (WCAG 2.1.1); a short one is not, or each
// Tab would stop on a list with nothing more to show. Checked as each list is drawn, and as its box changes (the
// window, the zoom, a panel shown).
function tabStopIfScrolls(list) {
  if (list.scrollHeight > list.clientHeight) list.tabIndex = 0;
  else list.removeAttribute("tabindex");
}
const scrolling = new ResizeObserver((entries) => entries.forEach((entry) => tabStopIfScrolls(entry.target)));
for (const id of ["messages", "log"]) scrolling.observe($(id));
// The kiosk's warning, at the window's foot, covers none of the page: the page's end has its height below it.
new ResizeObserver(() => document.documentElement.style.setProperty(
  "--warning-height", $("still-playing").offsetHeight + "px")).observe($("still-playing"));

// --- talking to the machine ----------------------------------------------------
function answer(reply) {
  if (reply.view) {
    before = view;
    view = reply.view;
    announceMoves();            // first the moves, then what the machine said of them
  }
  if (reply.error) sayText(reply.error, "error");
  for (const command of reply.commands || []) carryOut(command);
  if (reply.view) {
    announceSwitch();
    draw();
    schedule();
  }
  announce();
  if (reply.view) kioskReset();
  return reply;
}

function feed(event) {
  if (following) return null;         // a second screen only watches
  touched = true;
  if (warning !== null) keepGame(false);
  return ask(() => bridge.handle(JSON.stringify(event), now()));
}

// One question to the machine. Should the machine itself fail (a bug, never a
// visitor's doing), one line says so and the page stays as it was.
function ask(question) {
  let text;
  try {
    text = question();
  } catch (error) {
    window.nim.errors.push(String(error));
    const reason = String(error.message || error).split("\n")[0];
    sayText(() => fmt(_("The machine stopped on an error: %(error)s"), { error: reason }), "error");
    announce();
    return null;
  }
  return answer(JSON.parse(text));
}

function carryOut(command) {
  const head = command[0];
  if (head === "message") say(command[1], command[2]);
  else if (head === "sound") play(command[1]);
  else if (head === "release") return;
  else outputs[command.slice(0, -1).join("/")] = command[command.length - 1];
}

// The machine's next deadline (a timer, a marble reaching the gate): one JS timer.
function schedule() {
  clearTimeout(timer);
  if (view.next !== null && following) {
    timer = setTimeout(() => followed(() => bridge.follow_advance(clockNow())), Math.max(0, view.next - clockNow()));
  } else if (view.next !== null) {
    timer = setTimeout(() => ask(() => bridge.advance(now())), Math.max(0, view.next - now()));
  }
  if (view.falling && view.falling.length && !animating && !still.matches) {
    animating = true;
    requestAnimationFrame(animate);
  }
}

function animate() {
  drawFalling();
  if (view.falling && view.falling.length) requestAnimationFrame(animate);
  else animating = false;
}

// The kiosk: once the machine falls idle after a visitor, a fresh machine for
// the next one (the marbles back on the rail, a new seed), resting in its attract state.
// A game still under way (restingForNext) is ended only after a warning (WCAG 2.2.1): a visitor
// who is still thinking has warn_ms (20 s unless the address says) to keep it with any key or press,
// which plays no move (a press on the trigger dropped a marble the visitor had not chosen).
// A kiosk that follows an exhibit goes back to its first language when the exhibit rests between visitors.
function kioskReset() {
  const resting = restingForNext();
  if (kiosk && following && resting && !wasResting && lang.code !== home) setLanguage(home);
  wasResting = resting;
  if (kiosk && !following && view.attract && touched) {
    if (!resting && warnMs > 0) {
      if (warning === null && !recentlyKept()) warn();
      return;
    }
    freshMachine(false);
  }
}

// The machine rests in its attract state with no game under way: the game is over, or none begun. Resting in the
// middle of a game (its idle time passed while the visitor thinks) is not the next visitor's turn yet.
function restingForNext() {
  return view.attract && !(view.mode === "play" && (view.turns.length > 0 || view.turn_taken > 0));
}

// The warning, in words (a function: said again in the language a visitor changes to).
function warningText() {
  const seconds = Math.ceil(warnMs / 1000);
  // Translators: the kiosk's warning before it ends a game left alone for the next visitor; any key, a press of
  // any button or a touch keeps the game, and that press does not play (it drops no marble, puts out no lamp)
  return fmt(_n("Still playing? Press any key or button within %(seconds)d second to keep your game: that press "
                + "plays no move.",
                "Still playing? Press any key or button within %(seconds)d seconds to keep your game: that press "
                + "plays no move.", seconds), { seconds });
}

// The warning: said in the live region, and shown in a banner on the screen wherever the page is scrolled (at
// 200 % zoom the live region's line was above the window) with its Keep playing button; the focus stays put.
// The live region's line is not shown meanwhile (a desktop window showed the warning twice), and keeps the room
// of the line before it, so that nothing on the page moves; a screen reader still reads it.
function warn() {
  const line = $("said"), room = line.offsetHeight;
  sayText(warningText, "warning");
  announce();
  line.style.height = room + "px";
  line.classList.add("told-in-banner");
  focusedAtWarning = document.activeElement;
  drawWarning();
  $("still-playing").hidden = false;
  warning = setTimeout(() => {
    warning = null;
    hideWarning();
    if (view.attract && touched) freshMachine(true);
  }, warnMs);
}

function drawWarning() {
  $("still-playing-text").textContent = warningText();
  $("keep-playing").textContent = _("Keep playing");
}

function hideWarning() {
  const banner = $("still-playing");
  const inside = banner.contains(document.activeElement);
  banner.hidden = true;
  showLine();
  // the Keep playing button pressed had the focus: it goes back where it was, else to the machine's first control
  if (inside) {
    const back = focusedAtWarning && focusedAtWarning.isConnected && focusedAtWarning !== document.body
      && !banner.contains(focusedAtWarning) ? focusedAtWarning : $("controls").querySelector("button");
    if (back) back.focus();
  }
  focusedAtWarning = null;
}

// The warning answered. `answered`: by a key or a press that plays no move (the machine, which knows nothing of
// it, stays idle, so the kiosk waits the machine's idle time again from it before it warns once more), said in the
// live region; else by a move, which the machine hears.
function keepGame(answered) {
  clearTimeout(warning);
  warning = null;
  hideWarning();
  if (!answered) return;
  keptAt = now();
  pending.push(_("Your game goes on."));
  announce();
}

// Any key or press while the warning shows answers it: true when it did (the move it would have been is not made).
function answerWarning() {
  if (warning === null) return false;
  keepGame(true);
  return true;
}

// A key or a press begins: it answers the warning, if one shows, and then it plays no move, nor does the click it
// brings (Enter's on its keydown, Space's on its keyup, a tap's a moment after it is lifted).
function gestureBegins(event) {
  if (event.repeat) return;
  answering = answerWarning();
}

function gestureEnds(event) {
  if (answering) setTimeout(() => { answering = false; }, event.type === "keyup" ? 0 : 1000);
}

function recentlyKept() {
  if (keptAt !== null && now() - keptAt < (chosen[decl.name].idle_ms ?? decl.settings.idle_ms.default)) return true;
  keptAt = null;
  return false;
}

// A fresh machine for the next visitor, said in the live region: `ended`, a game was ended after the warning.
function freshMachine(ended) {
  if (!params.get("seed")) chosen.seed = newSeed();
  if (shortcutsOn !== shortcutsAsked) {
    shortcutsOn = shortcutsAsked;
    drawShortcutsSwitch();
  }
  // Translators: said when the kiosk ended a game left alone after its warning, and set a new one
  const said = ended ? () => _("Time is up: that game is over, and a new one is ready for the next visitor.")
    // Translators: said when the kiosk set a new game for the next visitor after a game was over
    : () => _("A new game is ready for the next visitor.");
  const begin = () => {
    start(decl.name, true);
    sayText(said, "note");
    announce();
  };
  if (lang.code !== home) {
    setLanguage(home).then(begin);
    touched = false;
    return;
  }
  begin();
}

function newSeed() {
  return 1 + Math.floor(Math.random() * 0xfffffffe);
}

// A machine called `name` with the visitor's settings. Settings it refuses: the game under way plays
// on; with none under way (the address set them), the machine starts without the one refused (the
// line names it first), each refused said; one the line does not name leaves the machine on its
// defaults and a fresh seed, once: never again and again.
function start(name, resting, defaults) {
  const settings = Object.assign({ seed: chosen.seed }, chosen[name]);
  const reply = JSON.parse(bridge.start(name, JSON.stringify(settings), now(), !!resting));
  if (reply.error) {
    if ((view && view.machine === name) || defaults) {
      settingError(reply.error);
      return false;
    }
    const key = reply.error.split(":")[0];
    if (key === "seed") {
      chosen.seed = newSeed();
    } else if (Object.hasOwn(chosen[name], key)) {
      delete chosen[name][key];
    } else {
      chosen[name] = {};
      chosen.seed = newSeed();
      defaults = true;
    }
    start(name, resting, defaults);
    settingError(reply.error);
    return false;
  }
  delete drafts[name];
  show(name, reply, { outputs: {}, said: [], touched: false });
  return true;
}

// A machine's button: that machine's game as the visitor left it, or its first game. Each machine keeps its own
// while the page is open (the bridge's `kept`, and here what the page drew of it): a teacher who showed the class
// the other machine lost the game under way, without a word. The button of the machine shown does nothing (it
// began a new game, as silently).
function switchMachine(name) {
  if (name === decl.name) return;
  keptGames[decl.name] = { outputs, said, touched };
  if (!Object.hasOwn(keptGames, name)) {
    start(name);
    return;
  }
  show(name, JSON.parse(bridge.resume(name, now())), keptGames[name]);
  // Translators: said when the visitor went back to a machine whose game they had left for the other machine
  sayText(() => fmt(_("%(machine)s: your game as you left it."), { machine: machineName(name) }), "note");
  announce();
}

// Machine `name` drawn from the bridge's `reply`, with what the page keeps of its game (`game`: its outputs, what it
// said, whether a visitor played it).
function show(name, reply, game) {
  decl = machines[name];
  outputs = game.outputs;
  touched = game.touched;
  settingProblem = null;
  $("settings-error").textContent = "";
  said = game.said;
  drawMessages();
  $("said").textContent = "";
  view = reply.view;
  const focused = document.activeElement && document.activeElement.id;
  build();
  view = null;
  answer(reply);
  // the same control keeps the focus in the new machine (a setting changed, the kiosk's reset)
  if (focused && $(focused) && document.activeElement !== $(focused)) $(focused).focus();
  // the visitor's settings into the address too (not a kiosk's: its address is the museum's), so that a reload (a
  // tablet's browser reloads a tab it had put aside) keeps them; the seed is left out, a new game's own
  const address = Object.assign({}, Object.fromEntries(params), { machine: name });
  if (!kiosk) {
    for (const given of Object.keys(address)) {       // pace=600 or rows=1,3,5,7 given, written by its own name
      if (addressSetting(decl.settings, given, address[given])[0] !== given) delete address[given];
    }
    for (const [key, value] of Object.entries(chosen[name] || {})) {
      address[key] = Array.isArray(value) ? value.map((row) => row.join(",")).join(";") : String(value);
    }
  }
  history.replaceState(null, "", "?" + new URLSearchParams(address).toString());
}

// A setting the machine refused: one line, and the game goes on as it was. Said once, in the live region (the
// line beside the settings is not a second one: a reader said it twice), and in the visitor's language.
function settingError(text) {
  settingText = text;
  settingProblem = () => fmt(_("That setting does not fit: %(problem)s"), { problem: apart(text) });
  $("settings-error").textContent = settingProblem();
  sayText(settingProblem, "error");
  announce();
}

// The machine said message `id` with `values`: in the list of what it said, and announced.
function say(id, values) {
  said.unshift([id, values || {}]);
  said.length = Math.min(said.length, MESSAGES_KEPT);
  drawMessages();
  pending.push(message(id, values));
}

// A line of the page's own (an error, a warning): in the list, and announced. `text` is a function where the page
// wrote the line itself, so that the list says it again in the language a visitor changes to.
function sayText(text, kind) {
  said.unshift([text, kind]);
  said.length = Math.min(said.length, MESSAGES_KEPT);
  drawMessages();
  pending.push(written(text));
}

function written(text) {
  return typeof text === "function" ? text() : text;
}

function drawMessages() {
  const list = $("messages");
  list.textContent = "";
  for (const [what, extra] of said) {
    if (typeof extra === "string") element("li", { class: extra }, list, written(what));
    else element("li", {}, list, message(what, extra));
  }
  tabStopIfScrolls(list);
}

// The live region's line shown again after the kiosk's warning, in its own room.
function showLine() {
  $("said").classList.remove("told-in-banner");
  $("said").style.height = "";
}

// The live region (polite): what this answer brought, in words, once. A text like the last one
// is told apart by a no-break space, so that a screen reader says it again.
function announce() {
  if (!pending.length) return;
  let text = pending.join(" ");
  pending = [];
  if ($("said").textContent === text) text += "\u00a0";
  $("said").textContent = text;
  showLine();
  window.nim.announced.push(text.trim());
  if (window.nim.announced.length > ANNOUNCED_KEPT) window.nim.announced.shift();
}

// Each move since the last answer in words: the visitor's marble or lamp, the machine's reply.
function announceMoves() {
  if (!before || !view || before.machine !== view.machine) return;
  if (view.machine === "drnim") {
    const mine = view.turn === "player" && !view.running && view.mode === "play";
    const theirs = view.turns.slice(before.turns.length).filter((turn) => turn[0] === "machine");
    if (view.taken > before.taken && !before.running && before.turn === "player" && !view.running) {
      const dropped = view.taken - before.taken - theirs.reduce((sum, turn) => sum + turn[1], 0);
      if (dropped > 0) {
        pending.push(fmt(_n("You dropped %(count)d marble.", "You dropped %(count)d marbles.", dropped),
                         { count: dropped }));
        if (view.mode === "play") pending.push(fmt(_n("%(left)d is left.", "%(left)d are left.", view.rail), { left: view.rail }));
      }
    }
    for (const [, count] of theirs) {
      pending.push(fmt(_n("Dr. Nim dropped %(count)d marble.", "Dr. Nim dropped %(count)d marbles.", count), { count }));
      if (view.mode === "play") pending.push(fmt(_n("%(left)d is left.", "%(left)d are left.", view.rail), { left: view.rail }));
      if (mine) pending.push(_("Your turn."));
    }
    if (view.turn === "machine" && before.turn === "player" && view.mode === "play") {
      pending.push(_("Turn switch on Dr. Nim's side: press the trigger once for its turn."));
    }
    return;
  }
  // the visitor's lamps: a press puts out one (never in the machine's turn, when the machine's go out)
  if (before.turn === "player") {
    view.rows.forEach((lit, i) => {
      if (lit < before.rows[i]) {
        pending.push(fmt(_n("You put out a lamp in row %(row)d: %(left)d is still lit there.",
                            "You put out a lamp in row %(row)d: %(left)d are still lit there.", lit), { row: i + 1, left: lit }));
      }
    });
  }
  for (const [who, move] of view.turns.slice(before.turns.length)) {
    if (who !== "machine") continue;
    const [row, count] = String(move).split(":").map(Number);
    pending.push(fmt(_n("The Nimatron put out %(count)d lamp in row %(row)d.",
                        "The Nimatron put out %(count)d lamps in row %(row)d.", count), { count, row }));
    if (view.mode === "play" && view.turn === "player") pending.push(_("Your turn."));
  }
  if (view.turn === "machine" && before.turn === "player" && view.mode === "play") {
    pending.push(_("Handed over to the Nimatron: it is thinking."));
  }
}

function play(cue) {
  if (!soundOn || !touched) return;
  try {
    audio = audio || new AudioContext();
    let at = audio.currentTime;
    for (const [hertz, ms] of CUES[cue] || [[440, 80]]) {
      const tone = audio.createOscillator();
      const volume = audio.createGain();
      tone.type = "square";
      tone.frequency.value = hertz;
      volume.gain.setValueAtTime(0.04, at);
      volume.gain.exponentialRampToValueAtTime(0.0001, at + ms / 1000);
      tone.connect(volume).connect(audio.destination);
      tone.start(at);
      tone.stop(at + ms / 1000);
      at += ms / 1000;
    }
  } catch (error) {
    soundOn = false;        // no sound on this browser: the lamps and messages say it all
  }
}

function drawSoundSwitch() {
  $("sound").setAttribute("aria-pressed", soundOn);
  $("sound").textContent = soundOn ? _("Sound: on") : _("Sound: off");
}

function drawWorkingSwitch() {
  $("working-shown").setAttribute("aria-expanded", workingShown);
  $("working-shown").textContent = workingShown ? _("Hide the working") : _("Show the working");
}

function drawMovingLampsSwitch() {
  $("moving-lamps").setAttribute("aria-pressed", lampsMove());
  $("moving-lamps").textContent = lampsMove() ? _("Moving lamps: on") : _("Moving lamps: off");
  // every blinking lamp stands still with them (a dashed ring tells it from a lamp lit steadily), not only the
  // resting machine's lamps that run round: the Nimatron's NIM CHAMP blinked on (WCAG 2.2.2)
  document.documentElement.classList.toggle("lamps-still", !lampsMove());
}

function drawShortcutsSwitch() {
  $("shortcuts").setAttribute("aria-pressed", shortcutsOn);
  // Translators: the button that turns the page's one-key shortcuts (t for the trigger, n for New game...) on
  // and off, and its state, as "Sound: on"
  $("shortcuts").textContent = shortcutsOn ? _("Shortcut keys: on") : _("Shortcut keys: off");
}

// --- the language buttons ------------------------------------------------------------------
let languageAsked = 0;      // the language presses so far: only the last one's catalog is used
let languageNotice = null;  // the line in what the machine said that a language could not come, while it is there

// The page in language `code`, every text of it redrawn at once. A catalog that comes after a later press is
// not used, nor said to have failed: two quick presses end in the second language, never in the first, nor
// in a mix. One that does not come (the server stopped, the laptop asleep) is said in the page's language, and
// the page stays as it was, playing on; the next press that works takes the notice away.
async function setLanguage(code) {
  languageAsked += 1;
  const asked = languageAsked;
  if (code === lang.code) return;         // the language shown: a press meanwhile for another one is called off
  let catalog;
  try {
    catalog = await fetchCatalog(code, LANGUAGE_WAIT_MS);
  } catch (error) {
    if (asked === languageAsked) cannotChangeLanguage(code, error);
    return;
  }
  if (asked !== languageAsked) return;
  useLanguage(code, catalog);
  forgetLanguageNotice();
  $("said").textContent = "";             // the last announcement, in the language before
  drawTexts();
  drawMessages();
  if (decl && view) {
    const focused = document.activeElement && document.activeElement.id;
    build();
    draw();
    if (focused && $(focused)) $(focused).focus();
  } else if (failure !== null) {
    drawFailure();
  } else if (!following && !window.nim.errors.length) {
    drawStarting();
  }
  if (following) drawLink();
}

// Language `code` did not come: one line in the page's language where the machine's words are (what it said,
// and the live region), in place of the last such line; the reason, for a technician, on the console.
function cannotChangeLanguage(code, error) {
  console.warn(String(error.message || error));
  forgetLanguageNotice();
  // Translators: said when a language's button was pressed and its texts did not come (the laptop or computer
  // that serves the page is asleep or switched off); the game goes on in this language. %(language)s is that
  // language's name in itself, as on its button (Deutsch, Français). Plain words: a child reads it.
  sayText(fmt(_("The page cannot switch to %(language)s right now: the computer it came from did not send the "
                + "words. Keep playing, and try again in a while."), { language: apart(languageNames[code] || code) }),
          "error");
  languageNotice = said[0];
  announce();
}

function forgetLanguageNotice() {
  said = said.filter((line) => line !== languageNotice);
  languageNotice = null;
}

function buildLanguages() {
  const nav = $("languages");
  nav.textContent = "";
  if (offered.length < 2) return;
  for (const code of offered) {
    const button = element("button", { type: "button", value: code, lang: PSEUDO_TAGS[code] || code,
                                        dir: languageDirections[code] || "auto", id: "language-" + code }, nav,
                           languageNames[code] || code);
    button.addEventListener("click", () => {
      answerWarning();            // a language pressed keeps the game too ("any button")
      setLanguage(code);
    });
  }
}

// The page's own texts around the machine, in the visitor's language.
function drawTexts() {
  document.title = _("The Amazing Dr. Nim and the Nimatron");
  const heading = $("page-title");
  heading.textContent = "";
  fillIn(heading, _("The Amazing Dr. Nim %(and)s the Nimatron"),
         { and: () => element("span", { class: "and" }, null, _("and")) });
  $("machines").setAttribute("aria-label", _("Choose a machine"));
  $("languages").setAttribute("aria-label", _("Language"));
  for (const button of $("languages").children) button.setAttribute("aria-pressed", button.value === lang.code);
  for (const button of $("machines").children) button.textContent = machineName(button.value);
  $("lamps").setAttribute("aria-label", _("Status lamps"));
  $("controls").setAttribute("aria-label", _("Controls"));
  $("working-title").textContent = _("Why the machine moved");
  $("settings-title").textContent = _("Settings");
  $("messages-title").textContent = _("What the machine said");
  $("log-title").textContent = _("The exhibit's connection");
  $("messages").dataset.empty = _("Nothing yet.");
  $("log").dataset.empty = _("Nothing yet.");
  const footer = $("about");
  footer.textContent = "";
  fillIn(footer, _("The machines run the project's own game core, unchanged, in %(micropython)s compiled to "
                   + "WebAssembly: the same code as the replicas' Raspberry Pi and Pico. Nothing leaves this page. "
                   + "%(licence)s."),
         { micropython: () => element("a", { href: "micropython/LICENSE" }, null, "MicroPython"),
           licence: () => element("a", { href: "LICENSE" }, null, _("Licence")) });
  drawSoundSwitch();
  drawWorkingSwitch();
  drawMovingLampsSwitch();
  drawShortcutsSwitch();
  drawWarning();
  if (settingProblem) $("settings-error").textContent = settingProblem();
}

// `text` into `parent`, each %(name)s made by `parts[name]()` (a link, a word set apart).
function fillIn(parent, text, parts) {
  let at = 0;
  for (const match of text.matchAll(/%\((\w+)\)s/g)) {
    parent.appendChild(document.createTextNode(text.slice(at, match.index)));
    parent.appendChild(parts[match[1]] ? parts[match[1]]() : document.createTextNode(match[0]));
    at = match.index + match[0].length;
  }
  parent.appendChild(document.createTextNode(text.slice(at)));
}

// Each machine's name for visitors, and its heading with its year: a machine of the registry's
// without a line here would be called by its registry name (tests/test_registry.py holds them to it).
function machineName(name) {
  return { drnim: _("The Amazing Dr. Nim"), nimatron: _("The Nimatron") }[name] || name;
}
function machineHeading(name) {
  return { drnim: _("The Amazing Dr. Nim (1966)"), nimatron: _("The Nimatron (1940)") }[name] || name;
}

// --- the page around the machine -------------------------------------------------
function build() {
  document.title = machineName(decl.name);
  $("machine-title").textContent = machineHeading(decl.name);
  for (const button of $("machines").children) button.setAttribute("aria-pressed", button.value === decl.name);
  $("board").textContent = "";
  $("controls").textContent = "";
  if (decl.name === "drnim") buildDrNim(); else buildNimatron();
  buildControls();
  buildLamps();
  buildSettings();
}

function buildControls() {
  for (const input of decl.inputs) {
    if (input.kind === "button" && !input.role.startsWith("row")) {
      const button = element("button", { type: "button", id: "control-" + input.role, class: "control " + input.role },
                             $("controls"), controlName(input.role));
      button.addEventListener("click", () => press(input));
    } else if (input.kind === "switch") {
      const button = element("button", { type: "button", id: "control-" + input.role, class: "control switch" },
                             $("controls"));
      button.addEventListener("click", () => flip(input));
      parts[input.role] = button;
    }
  }
  drawKeys();
}

// The keys' line: each key and what it does, and where they work.
function drawKeys() {
  const keys = [];
  for (const input of decl.inputs) {
    if (input.kind === "button" && !input.role.startsWith("row")) {
      keys.push(keyHelp(KEYS[input.role], controlName(input.role)));
    } else if (input.kind === "switch") {
      const keysOf = KEYS[input.role] || {};
      const to = switchTo(input.role);
      if (keysOf.on) keys.push(keyHelp(keysOf.on, to[input.on_side === "left" ? 0 : 1]));
      if (keysOf.off) keys.push(keyHelp(keysOf.off, to[input.on_side === "left" ? 1 : 0]));
      if (keysOf.toggle) keys.push(keyHelp(keysOf.toggle, fmt(_("%(switch)s over"), { switch: switchName(input.role) })));
    }
  }
  if (rowCount()) keys.unshift(fmt(_("1-%(rows)d: a row's button"), { rows: rowCount() }));
  // Translators: after the list of keys; "Shortcut keys" is the button's name ("Shortcut keys: on")
  const where = shortcutsOn ? _("They work wherever the focus is but in the settings; the Shortcut keys button "
                                + "turns them off.")
    // Translators: after the list of keys, once the visitor turned them off with the Shortcut keys button
    : _("They are off: the Shortcut keys button turns them on.");
  $("keys").textContent = fmt(_("Keys: %(keys)s"), { keys: keys.filter(Boolean).join(" · ") });
  element("span", { class: "where" }, $("keys"), where);
}

function keyHelp(keys, what) {
  if (!keys || !keys.length) return "";
  const named = { " ": _("space"), Enter: _("Enter") };
  return fmt(_("%(keys)s: %(what)s"), { keys: keys.map((key) => named[key] || key).join(_(" or ")), what });
}

function buildLamps() {
  const list = $("lamps");
  list.textContent = "";
  for (const name of decl.lamps) {
    const item = element("li", { class: "lamp" }, list);
    item.style.setProperty("--lamp", LAMP_COLOURS[name] || "#ffffff");    // a style="" the policy would refuse
    element("span", { class: "bulb", "aria-hidden": "true" }, item);
    parts["lamp-" + name] = element("span", { class: "lamp-name" }, item, lampName(name));
    parts["lamp-item-" + name] = item;
  }
}

// A press of a button, a switch flipped: none while the key or press answers the kiosk's warning.
function press(input) {
  if (answering || answerWarning()) return;
  feed(input.press);
  feed(input.release);
}

let flipped = null;         // the switch the visitor flipped, for its new side said in the live region
function flip(input, to) {
  if (answering || answerWarning()) return;
  const on = to === undefined ? !switchActive(input) : to;
  flipped = [input, switchActive(input)];
  try {
    feed(on ? input.on : input.off);
  } finally {
    flipped = null;
  }
}

// A switch's button names the side it stands on, and nothing else says it (a pressed state said "Turn switch:
// you, not pressed"): the side it was moved to is said in the live region, unless the machine said more of it.
function announceSwitch() {
  if (!flipped || pending.length) return;
  const [input, was] = flipped;
  if (switchActive(input) !== was) pending.push(switchSaid(input) + ".");
}

function switchSaid(input) {
  const left = switchActive(input) === (input.on_side === "left");
  return fmt(_("%(switch)s: %(side)s"),
             { switch: switchName(input.role), side: switchSides(input.role)[left ? 0 : 1] });
}

// Where a switch stands: the machine remembers some (Dr. Nim's equalizer switch, which a marble
// never moves: only the equalizer it sets); the others are shown by their indicator (the turn).
function switchActive(input) {
  const remembered = view.switches || {};
  if (Object.hasOwn(remembered, input.role)) return remembered[input.role];
  return outputs[input.on[1]] === input.on_side;
}

// --- settings -----------------------------------------------------------------
// Each setting a group of choices (radio buttons, every choice in sight, its words wrapping in any
// language), a true-or-false setting a checkbox. A choice changed is not played at once: the game under way goes
// on until the visitor presses New game with these settings (WCAG 3.2.2: the arrow keys, going through a
// setting's choices, began a new game at each, and threw the game away without a word).
function buildSettings() {
  const form = $("settings");
  form.textContent = "";
  const mine = drafts[decl.name] || chosen[decl.name] || {};
  for (const key of VISITOR_SETTINGS[decl.name] || []) {
    const options = settingOptions(key);
    if (!options) continue;
    const id = "setting-" + key;
    if (options === "flag") {
      const row = element("p", { class: "flag" }, form);
      const label = element("label", { for: id }, row);
      const box = element("input", { type: "checkbox", id }, label);
      label.appendChild(document.createTextNode(settingName(key)));
      box.checked = key in mine ? mine[key] : decl.settings[key].default;
      box.addEventListener("change", () => choose(key, box.checked));
      continue;
    }
    if (typeof decl.settings[key].default === "number") {   // a count (Dr. Nim's marbles): a list to pick from
      const label = element("label", { for: id }, element("p", { class: "count" }, form), settingName(key));
      const list = element("select", { id }, label);
      const current = currentChoice(key, mine);
      for (const [value, words] of options) element("option", { value }, list, words).selected = value === current;
      list.addEventListener("change", () => choose(key, options[list.selectedIndex][0]));
      continue;
    }
    const group = element("fieldset", { id }, form);
    element("legend", {}, group, settingName(key));
    const current = currentChoice(key, mine);
    for (const [value, words] of options) {
      const label = element("label", { class: "choice" }, group);
      const radio = element("input", { type: "radio", name: id, value, id: id + "-" + value.replace(/[^a-z0-9]+/gi, "-") },
                            label);
      radio.checked = value === current;
      label.appendChild(document.createTextNode(words));
      radio.addEventListener("change", () => { if (radio.checked) choose(key, value); });
    }
  }
  element("p", { id: "settings-pending", role: "status" }, form);
  element("p", {}, form).appendChild(
    element("button", { type: "submit", id: "settings-apply" }, null, _("New game with these settings")));
  drawPending();
}

// Whether choices wait to be played, said beside the button that plays them (once: a status).
function drawPending() {
  const draft = drafts[decl.name];
  const waiting = draft && JSON.stringify(choices(draft)) !== JSON.stringify(choices(chosen[decl.name] || {}));
  // Translators: shown under the settings once one is changed; "New game with these settings" is the button's name
  const text = waiting ? _("Your game goes on: the settings chosen start when you press New game with these "
                           + "settings.") : "";
  if ($("settings-pending").textContent !== text) $("settings-pending").textContent = text;
}

// The settings `mine` as the visitor sees them: each setting's choice.
function choices(mine) {
  return (VISITOR_SETTINGS[decl.name] || []).filter((key) => settingOptions(key)).map((key) => (
    settingOptions(key) === "flag" ? (key in mine ? mine[key] : decl.settings[key].default)
      : currentChoice(key, mine)));
}

// The settings chosen played: a new game with them, said in the live region. A setting the machine refuses
// leaves the game, and the settings it plays, as they were.
function playSettings() {
  const name = decl.name;
  const before = chosen[name];
  chosen[name] = drafts[name] || chosen[name] || {};
  if (!start(name)) {
    chosen[name] = before;
    return;
  }
  // Translators: said when the visitor pressed New game with these settings
  sayText(() => _("A new game begins with the settings chosen."), "note");
  announce();
}

// The choices a setting offers, from the machine's declarations: [[value, words], ...], or "flag".
function settingOptions(key) {
  if (key === "opening") {
    if (!decl.settings.opening) return null;
    return [["random", _("one of a dozen, at random")]].concat(
      decl.openings.map((rows) => [rows.join(" "), fmt(_("rows of %(rows)s"), { rows: rows.join(", ") })]));
  }
  if (key === "opponent") {
    const options = decl.settings.decide ? [["historic", choiceName("historic")]] : [];
    return options.concat(decl.opponents.map((name) => [name, choiceName(name)]));
  }
  const spec = decl.settings[key];
  if (!spec) return null;
  if (typeof spec.default === "boolean") return "flag";
  if (key === "marbles") {        // a game of fewer (Parker's of 12, machines.md R15), up to what the rail holds
    const mine = drafts[decl.name] || chosen[decl.name] || {};
    const most = mine.capacity ?? decl.settings.capacity.default;
    return Array.from({ length: most }, (_unused, i) => [most - i, String(most - i)]);
  }
  return (spec.choices || []).map((value) => [value, choiceName(value)]);
}

function currentChoice(key, mine) {
  if (key === "opening") return mine.openings ? mine.openings[0].join(" ") : "random";
  if (key === "opponent" && decl.settings.decide) {
    return (mine.decide || decl.settings.decide.default) === "historic" ? "historic"
      : mine.opponent || decl.settings.opponent.default;
  }
  return key in mine ? mine[key] : decl.settings[key].default;
}

// A visitor's choice as the machine's settings, kept for the next game begun with them.
function choose(key, value) {
  const mine = Object.assign({}, drafts[decl.name] || chosen[decl.name] || {});
  if (key === "opening") {
    delete mine.openings;
    mine.opening = "random";
    if (value !== "random") Object.assign(mine, { openings: [value.split(" ").map(Number)], opening: "first" });
  } else if (key === "opponent" && decl.settings.decide) {
    Object.assign(mine, value === "historic" ? { decide: "historic" } : { decide: "strategy", opponent: value });
  } else {
    mine[key] = value;
  }
  drafts[decl.name] = mine;
  drawPending();
}

// --- Dr. Nim's board -----------------------------------------------------------------
const LEVERS = [["flip_flop/1", 200, 92, "1"], ["flip_flop/2", 140, 146, "2"], ["flip_flop/3", 260, 146, "3"],
  ["equalizer", 200, 200, ""], ["turn", 200, 254, ""]];
const CHUTE_X = 385, CHUTE_TOP = 44, GATE_Y = 262, CHUTE_END = 292;

function buildDrNim() {
  const svg = element("svg:svg", { viewBox: "0 0 420 356", role: "img", "aria-labelledby": "board-title board-desc",
    class: "drnim" }, $("board"));
  element("svg:title", { id: "board-title" }, svg, _("Dr. Nim's board"));
  parts.desc = element("svg:desc", { id: "board-desc" }, svg);
  element("svg:rect", { x: 4, y: 4, width: 412, height: 348, rx: 16, class: "plastic" }, svg);
  const capacity = view.loaded;
  const step = Math.min(18, 280 / Math.max(1, capacity - 1));
  parts.slots = [];
  for (let i = 0; i < capacity; i++) {
    parts.slots.push(element("svg:circle", { cx: 66 + step * i, cy: 40, r: Math.min(7, step / 2 - 0.5), class: "slot" }, svg));
  }
  parts.railLabel = element("svg:text", { x: 14, y: 22, class: "label" }, svg);
  element("svg:rect", { x: 352, y: 28, width: 6, height: 24, class: "gate" }, svg);
  element("svg:path", { d: `M358 40 H${CHUTE_X} V${CHUTE_END}`, class: "chute" }, svg);
  element("svg:line", { x1: CHUTE_X - 14, y1: GATE_Y, x2: CHUTE_X + 14, y2: GATE_Y, class: "beam" }, svg);
  element("svg:text", { x: CHUTE_X - 38, y: GATE_Y + 4, class: "label small" }, svg, "IR");
  parts.falling = element("svg:g", { class: "falling" }, svg);
  fit(element("svg:text", { x: 14, y: 96, class: "label" }, svg, _("flip-flops")), 110);
  fit(element("svg:text", { x: 14, y: 204, class: "label" }, svg, _("equalizer")), 150);
  fit(element("svg:text", { x: 14, y: 258, class: "label" }, svg, _("turn")), 150);
  parts.levers = {};
  for (const [key, x, y, number] of LEVERS) {
    const place = element("svg:g", { transform: `translate(${x} ${y})` }, svg);
    if (number) element("svg:text", { x: -40, y: 5, class: "label" }, place, number);
    const lever = element("svg:g", { class: "lever" }, place);
    element("svg:rect", { x: -22, y: -4, width: 44, height: 8, rx: 4 }, lever);
    element("svg:path", { d: "M22 -8 L34 0 L22 8 Z" }, lever);
    element("svg:circle", { cx: 0, cy: 0, r: 3, class: "pivot" }, place);
    parts.levers[key] = lever;
  }
  parts.equalizerWord = element("svg:text", { x: 248, y: 204, class: "label" }, svg);
  parts.drnimSide = element("svg:text", { x: 180, y: 290, class: "side", "text-anchor": "end" }, svg, _("Dr. Nim"));
  parts.youSide = fit(element("svg:text", { x: 252, y: 290, class: "side" }, svg, _p("turn switch", "You")), 150);
  fit(parts.drnimSide, 160);
  parts.trayLabel = element("svg:text", { x: 14, y: 306, class: "label" }, svg);
  parts.tray = element("svg:g", {}, svg);
  // The trigger, and the turn switch's lever, work in the drawing too (by pointer or
  // touch; the buttons below are the same controls for the keyboard and screen readers).
  const trigger = element("svg:g", { class: "drawn-control", "aria-hidden": "true" }, svg);
  // its target: the corner below the turn switch's words, a finger's size on a 360 px phone (44 px)
  element("svg:rect", { x: 276, y: 296, width: 140, height: 60, class: "hit" }, trigger);
  element("svg:rect", { x: 280, y: 316, width: 130, height: 30, rx: 15, class: "face" }, trigger);
  fit(element("svg:text", { x: 345, y: 336, "text-anchor": "middle" }, trigger, _("TRIGGER")), 116);
  trigger.addEventListener("click", () => press(inputCalled("trigger")));
  const turn = parts.levers.turn.parentNode;
  turn.classList.add("drawn-switch");
  element("svg:circle", { r: 32, class: "hit" }, turn);
  turn.addEventListener("click", () => flip(inputCalled("turn_switch")));
}

// A drawn label squeezed to `most` units (its textLength) when its words are longer: a long word in
// another language stays inside its place on the board. Its letters are set closer first, where it
// spaces them ("DÉCLENCHEUR" on the trigger), so that they are squeezed less, or not at all.
function fit(label, most) {
  label.removeAttribute("textLength");
  label.removeAttribute("lengthAdjust");
  label.classList.remove("tight");
  if (label.getComputedTextLength() > most) label.classList.add("tight");
  if (label.getComputedTextLength() > most) {
    label.setAttribute("textLength", most);
    label.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return label;
}

function inputCalled(role) {
  return decl.inputs.find((input) => input.role === role);
}

function drawDrNim() {
  const falling = view.falling.length;
  const onRail = view.rail - falling;     // a released marble has left the rail
  const slots = parts.slots;
  slots.forEach((slot, i) => slot.setAttribute("class", i >= slots.length - onRail ? "slot marble" : "slot"));
  parts.railLabel.textContent = fmt(_("rail %(marbles)d"), { marbles: onRail });
  fit(parts.railLabel, 280);     // the row of marbles below it, the gate beyond it
  for (const [key] of LEVERS) {
    const side = outputs[key];
    parts.levers[key].setAttribute("class", "lever " + (side || "unknown"));
  }
  const armed = outputs.equalizer === "right";
  parts.equalizerWord.textContent = armed ? _p("equalizer", "armed") : _p("equalizer", "spent");
  fit(parts.equalizerWord, 160);
  parts.drnimSide.setAttribute("class", "side" + (outputs.turn === "left" ? " active" : ""));
  parts.youSide.setAttribute("class", "side" + (outputs.turn === "right" ? " active" : ""));
  const tray = view.tray;
  parts.trayLabel.textContent = fmt(_("tray %(marbles)d"), { marbles: tray });
  fit(parts.trayLabel, 90);
  parts.tray.textContent = "";
  const room = 18;
  for (let i = 0; i < Math.min(tray, room); i++) {
    element("svg:circle", { cx: 360 - 14 * i, cy: 302, r: 6, class: "marble" }, parts.tray);
  }
  if (tray > room) element("svg:text", { x: 100, y: 306, class: "label" }, parts.tray, "+" + (tray - room));
  drawFalling();
  const sideWords = (key) => outputs[key] === "left" ? _("left") : _("right");
  parts.desc.textContent = [
    fmt(_n("Rail: %(marbles)d marble.", "Rail: %(marbles)d marbles.", onRail), { marbles: onRail }),
    fmt(_("Flip-flops: 1 %(one)s, 2 %(two)s, 3 %(three)s."),
        { one: sideWords("flip_flop/1"), two: sideWords("flip_flop/2"), three: sideWords("flip_flop/3") }),
    armed ? _("Equalizer armed.") : _("Equalizer spent."),
    outputs.turn === "left" ? _("Turn switch on Dr. Nim's side.") : _("Turn switch on your side."),
    fmt(_n("Tray: %(marbles)d marble.", "Tray: %(marbles)d marbles.", tray), { marbles: tray }),
  ].concat(falling ? [fmt(_n("%(marbles)d marble falling.", "%(marbles)d marbles falling.", falling),
                          { marbles: falling })] : []).join(" ");
}

// prefers-reduced-motion: a falling marble is drawn where it is, never moved frame by frame.
const still = window.matchMedia("(prefers-reduced-motion: reduce)");
// The Moving lamps button (WCAG 2.2.2): a visitor stops the resting machine's lamps, which run round by
// themselves for as long as no one plays; until it is pressed, prefers-reduced-motion says.
let movingLamps = null;
function lampsMove() {
  return movingLamps === null ? !still.matches : movingLamps;
}

function drawFalling() {
  if (!parts.falling || !view.falling) return;
  parts.falling.textContent = "";
  const t = clockNow();
  for (const due of view.falling) {
    const done = still.matches ? 0.5 : 1 - Math.max(0, Math.min(1, (due - t) / view.fall_ms));
    element("svg:circle", { cx: CHUTE_X, cy: CHUTE_TOP + done * (GATE_Y - CHUTE_TOP), r: 7, class: "marble" }, parts.falling);
  }
}

function drNimStatus() {
  if (view.mode === "over") return message(view.verdict) + " " + _("Put the marbles back: New game.");
  if (view.fault === "jam") return _("Fault: a marble is stuck. Free it, or put the marbles back: New game.");
  if (view.fault) return _("Fault: check the marbles. Put them back: New game.");
  if (view.running) return _("Dr. Nim is playing its marbles…");
  if (view.turn === "machine") return _("Turn switch on Dr. Nim's side: press the trigger once for its turn.");
  if (view.taken === 0) {
    if (view.first === "machine") return _("Dr. Nim goes first: turn switch to Dr. Nim, then the trigger.");
    if (view.first === "player") return _("You go first: press the trigger 1 to 3 times.");
    return _("You first: press the trigger 1 to 3 times. Dr. Nim first: turn switch to Dr. Nim, then the trigger.");
  }
  if (view.turn_taken || view.in_flight) return _("Take up to 3. Then Dr. Nim's turn: turn switch to Dr. Nim, then the trigger.");
  return _("Your turn: press the trigger 1 to 3 times.");
}

// --- the Nimatron's console -------------------------------------------------------------
function rowCount() {
  return decl.inputs.filter((input) => input.role.startsWith("row")).length;
}

function buildNimatron() {
  const console_ = element("div", { class: "nimatron", role: "group", "aria-label": _("The Nimatron's rows of lamps") },
                           $("board"));
  parts.rows = [];
  for (const input of decl.inputs.filter((each) => each.role.startsWith("row"))) {
    const number = parts.rows.length + 1;
    const row = element("div", { class: "row" }, console_);
    const button = element("button", { type: "button", class: "control row-button", id: "control-" + input.role },
                           row, fmt(_("Row %(row)d"), { row: number }));
    button.addEventListener("click", () => press(input));
    const lamps = view.lamps;
    const bulbs = element("svg:svg", { viewBox: `0 0 ${lamps * 40} 40`, role: "img", class: "bulbs" }, row);
    const circles = [];
    for (let i = 0; i < lamps; i++) circles.push(element("svg:circle", { cx: 20 + 40 * i, cy: 20, r: 14 }, bulbs));
    parts.rows.push({ button, bulbs, circles });
  }
}

function drawNimatron() {
  parts.rows.forEach((row, i) => {
    const lit = outputs["row/" + (i + 1)] || 0;
    row.circles.forEach((circle, k) => circle.setAttribute("class", k < lit ? "bulb-lit" : "bulb-out"));
    // the number lit picks the plural form (English's forms are one: "1 of 7 lamps lit")
    row.bulbs.setAttribute("aria-label", fmt(_n("row %(row)d: %(lit)d of %(lamps)d lamps lit",
                                                "row %(row)d: %(lit)d of %(lamps)d lamps lit", lit),
                                             { row: i + 1, lit, lamps: row.circles.length }));
    // an empty row offers no move: its button says so (a press is refused, and said)
    row.button.setAttribute("aria-label", lit ? fmt(_n("Row %(row)d, %(lit)d lit: put out a lamp",
                                                       "Row %(row)d, %(lit)d lit: put out a lamp", lit), { row: i + 1, lit })
      // Translators: the name of an empty row's button on the Nimatron, for a screen reader
      : fmt(_("Row %(row)d: no lamp lit"), { row: i + 1 }));
  });
}

function nimatronStatus() {
  if (view.mode === "over") return message(view.verdict) + " " + _("New game for another.");
  if (view.fault) return _("The last game could not be resumed: New game.");
  if (view.turn === "machine") return view.moving ? _("The Nimatron puts out its lamps…") : _("The Nimatron is thinking…");
  if (view.row !== null) {
    return fmt(_("Taking from row %(row)d: press it again for another lamp, or hand over."), { row: view.row + 1 });
  }
  return _("Your turn: press a row's button once per lamp, then hand over.");
}

// --- drawing -----------------------------------------------------------------------------
function draw() {
  if (decl.name === "drnim") drawDrNim(); else drawNimatron();
  for (const name of decl.lamps) {
    // the resting machine's lamps, lit one after another by themselves, are drawn out when they are not to
    // move (the fault lamp still says a fault)
    const chasing = view.attract && !lampsMove() && name !== "fault";
    const state = chasing ? "off" : outputs["lamp/" + name] || "off";
    parts["lamp-item-" + name].setAttribute("class", "lamp " + state);
    parts["lamp-item-" + name].setAttribute("aria-label", fmt(_("%(lamp)s: %(state)s"),
                                                              { lamp: lampName(name), state: lampState(state) }));
  }
  for (const input of decl.inputs) {
    if (input.kind !== "switch") continue;
    parts[input.role].textContent = switchSaid(input);
  }
  const working = $("working");
  working.textContent = "";
  working.hidden = !workingShown;
  if (workingShown) {
    for (const [style, id, values] of view.working) element("li", { class: style }, working, message(id, values));
  }
  $("status").textContent = decl.name === "drnim" ? drNimStatus() : nimatronStatus();
  if (window.nim.firstFrameMs === null) {
    window.nim.firstFrameMs = performance.now();
    window.nim.ready = true;
  }
}

// --- keys ----------------------------------------------------------------------------------
// The single-key shortcuts act wherever the focus is (a kiosk's keypad presses them with the focus anywhere) but in
// a setting, while the visitor has them on (the Shortcut keys button, WCAG 2.1.4). A key that answered the kiosk's
// warning plays nothing, and scrolls nothing either.
function onKey(event) {
  if (!decl || following || !shortcutsOn || event.repeat || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const tag = target && target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  // Space and Enter on a focused button press that button, and Enter on a link follows it, as everywhere.
  if ((tag === "BUTTON" || tag === "A") && (event.key === " " || event.key === "Enter")) return;
  for (const input of decl.inputs) {
    const keys = KEYS[input.role];
    if (input.kind === "button") {
      const digit = input.role.startsWith("row") && event.key === input.role.slice(3);
      if (digit || (Array.isArray(keys) && keys.includes(event.key))) {
        event.preventDefault();
        return press(input);
      }
    } else if (input.kind === "switch" && keys) {
      const to = (keys.on || []).includes(event.key) ? true : (keys.off || []).includes(event.key) ? false
        : (keys.toggle || []).includes(event.key) ? undefined : null;
      if (to !== null) return flip(input, to);
    }
  }
}

// Any setting of the machine may be given in the page's address (a kiosk's
// `?kiosk=1&idle_ms=60000`), read by the type of its default; the machine checks it.
function settingsFromAddress(machine) {
  const settings = {};
  for (const [given, text] of params) {
    const [key, opening] = addressSetting(machine.settings, given, text);
    if (opening) {
      Object.assign(settings, { openings: [text.split(",").map(addressNumber)], opening: "first" });
      continue;
    }
    if (!Object.hasOwn(machine.settings, key) || key === "seed") continue;
    const spec = machine.settings[key];
    if (typeof spec.default === "boolean") settings[key] = Object.hasOwn(SWITCH_WORDS, text) ? SWITCH_WORDS[text] : text;
    else if (typeof spec.default === "number") settings[key] = addressNumber(text);
    // positions apart as the page writes them (;) or as a simulator script does (/)
    else if (Array.isArray(spec.default)) settings[key] = text.split(/[;/]/).map((row) => row.split(",").map(addressNumber));
    else settings[key] = text;
  }
  return settings;
}

// The setting a parameter of the address names, as a simulator script reads its game line (core/scenario.py's
// script_settings): equalizer-model for equalizer_model, pace for pace_ms (a time's _ms left out), and the
// Nimatron's rows=1,3,5,7 for the lamps of an opening played first. [key, true for such rows]; a parameter that
// names no setting of `settings`, as it is.
function addressSetting(settings, given, text) {
  const name = given.replace(/-/g, "_");
  if (name === "rows" && String(text).includes(",") && Object.hasOwn(settings, "openings")) return ["openings", true];
  if (Object.hasOwn(settings, name)) return [name, false];
  return [Object.hasOwn(settings, name + "_ms") ? name + "_ms" : given, false];
}

// A number of the address as the machine reads it: digits that JavaScript holds exactly as a number, anything else
// as the text it is, which the machine refuses naming its setting (a number of 20 digits, or 1.5, reached it as
// JSON it could not read, named no setting, and every setting of the address was dropped for it).
function addressNumber(text) {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : text;
}

// --- start-up -----------------------------------------------------------------------------
// When each step of the start-up was done, in ms after the page began to load (bench_web.py prints them).
function stage(name) {
  window.nim.stages[name] = Math.round(performance.now());
}

async function boot() {
  if (document.documentElement.classList.contains("unable")) return;      // check.js said why, in its place
  if (kiosk) document.documentElement.classList.add("kiosk");
  if (following) document.documentElement.classList.add("following");
  // the Sound button is on the page from the start: it answers while MicroPython loads (seconds on a slow phone)
  $("sound").addEventListener("click", () => { soundOn = !soundOn; drawSoundSwitch(); });
  $("working-shown").addEventListener("click", () => {
    workingShown = !workingShown;
    drawWorkingSwitch();
    if (view) draw();
  });
  drawWorkingSwitch();
  $("moving-lamps").addEventListener("click", () => {
    movingLamps = !lampsMove();
    drawMovingLampsSwitch();
    if (view) draw();
  });
  $("settings").addEventListener("submit", (event) => {
    event.preventDefault();
    if (decl) playSettings();
  });
  $("shortcuts").addEventListener("click", () => {
    shortcutsOn = !shortcutsOn;
    drawShortcutsSwitch();
    if (decl) drawKeys();
  });
  still.addEventListener("change", drawMovingLampsSwitch);
  drawMovingLampsSwitch();
  // any key or press answers the kiosk's warning, before the page acts on it (capture)
  document.addEventListener("keydown", gestureBegins, true);
  document.addEventListener("pointerdown", gestureBegins, true);
  for (const type of ["keyup", "pointerup", "pointercancel"]) document.addEventListener(type, gestureEnds, true);
  document.addEventListener("click", () => { if (answering) setTimeout(() => { answering = false; }); }, true);
  $("keep-playing").addEventListener("click", answerWarning);
  // a press on the warning takes no focus from where it was (the banner is gone before the press is over)
  $("still-playing").addEventListener("mousedown", (event) => event.preventDefault());
  // The port starts while the core's files come: each waits for the other only at the end.
  const runtime = import("./micropython/micropython.mjs").then(({ loadMicroPython }) => loadMicroPython(
    { stdout: (line) => console.log(line), stderr: (line) => console.error(line) }));
  const files = await (await fetch("files.json")).json();
  await chooseLanguage(files.languages || ["en"], files.names || {}, files.directions || {});
  // The machines' buttons come with the languages', before the port (seconds on a slow phone): the
  // header does not grow under a tap meant for another button, and a machine tapped meanwhile starts.
  let tapped = null;
  const nav = $("machines");
  for (const name of files.machines) {
    const button = element("button", { type: "button", value: name }, nav, machineName(name));
    button.addEventListener("click", () => {
      if (decl) return switchMachine(name);
      tapped = name;
      for (const each of nav.children) each.setAttribute("aria-pressed", each.value === name);
    });
  }
  stage("files");
  const mp = await runtime;
  stage("runtime");
  for (const [path, text] of Object.entries(files.python)) {
    const folders = path.split("/").slice(0, -1);
    for (let i = 1; i <= folders.length; i++) {
      const folder = "/" + folders.slice(0, i).join("/");
      if (!mp.FS.analyzePath(folder).exists) mp.FS.mkdir(folder);
    }
    mp.FS.writeFile("/" + path, text);
  }
  bridge = mp.pyimport("bridge");
  window.nim.mp = mp;
  window.nim.bridge = bridge;
  window.nim.feed = feed;
  window.nim.view = () => view;
  window.nim.outputs = () => outputs;
  window.nim.trace = () => JSON.parse(bridge.trace());
  for (const each of JSON.parse(bridge.machines())) machines[each.name] = each;
  stage("machines");
  // a seed as every shell takes it, 0 too (the page took 1 and up, and gave ?seed=0 a fresh one)
  const seedText = params.get("seed") || "";
  const seedFits = /^[0-9]{1,10}$/.test(seedText) && Number(seedText) <= 0xffffffff;
  chosen.seed = seedFits ? Number(seedText) : newSeed();
  if (following) return follow();
  document.addEventListener("keydown", onKey);
  drawSoundSwitch();
  // only a machine's own name: ?machine=__proto__ (or constructor) names no machine
  const name = tapped || (Object.hasOwn(machines, params.get("machine")) ? params.get("machine") : Object.keys(machines)[0]);
  for (const each in machines) chosen[each] = settingsFromAddress(machines[each]);
  start(name);
  const asked = params.get("machine");
  // what the address asked for and did not get, in one line after any setting the machine refused (each line
  // said alone took the place of the one before)
  const problems = settingProblem ? [settingText] : [];
  if (!tapped && asked !== null && asked !== name) {         // a typo in a kiosk's address: said, not guessed at
    const names = Object.keys(machines);
    problems.push(`machine: ${asked.slice(0, 40)} is not ${names.slice(0, -1).join(", ")} or ${names.at(-1)}: `
                  + `${name} is shown`);
  }
  problems.push(...optionProblems);
  if (params.get("seed") && !seedFits) {
    problems.push(`seed: ${params.get("seed")} is not a whole number from 0 to 4294967295: a fresh seed is used`);
  }
  for (const [key, meant, whose] of mistypedSettings(name)) {
    problems.push(`${key.slice(0, 40)}: no such setting (${meant}${whose ? ", " + whose + "'s" : ""}?): left out`);
  }
  if (problems.length > (settingProblem ? 1 : 0)) settingError(problems.join("; "));
}

// What the page reads from its address besides the machines' settings.
const PAGE_OPTIONS = ["broker", "follow", "keys", "kiosk", "lang", "machine", "password", "prefix", "seed", "sound",
                      "user", "warn_ms", "working"];

// The address's parameters that look like a setting mistyped (marbels, Idle_ms, think for think_ms), each as
// [parameter, the setting it looks most like, the other machine whose setting that is, when it is not the shown
// machine's nor the page's]: a kiosk's address with one played the default without a word. Any other is left alone
// (a link's utm_source or fbclid, a museum's own device=tablet, is no visitor's business).
function mistypedSettings(shown) {
  const owner = {};
  for (const [each, decl] of Object.entries(machines)) {
    for (const key in decl.settings) if (!owner[key] || each === shown) owner[key] = each;
  }
  for (const key of PAGE_OPTIONS) owner[key] = null;
  const found = [];
  for (const key of new Set(params.keys())) {
    if (Object.values(machines).some((each) => Object.hasOwn(each.settings, addressSetting(each.settings, key, "")[0]))
        || Object.hasOwn(owner, key)) continue;
    const typed = key.toLowerCase();
    const meant = Object.keys(owner).find((name) => name === typed || (typed.length >= 4 && name.startsWith(typed + "_")))
      || nearest(typed, Object.keys(owner));
    if (meant) found.push([key, meant, owner[meant] && owner[meant] !== shown ? machines[owner[meant]].title : ""]);
  }
  return found;
}

// The name of `names` fewest letters from `typed` (one left out, added, changed, or two swapped), if it is one letter
// from it, or two from a name of 8 letters or more (device=tablet is no mistyped decide); else undefined.
function nearest(typed, names) {
  let best, fewest = Infinity;
  for (const name of names) {
    const apart = lettersApart(typed, name);
    if (apart < fewest && apart <= (name.length >= 8 ? 2 : 1)) [best, fewest] = [name, apart];
  }
  return best;
}

function lettersApart(a, b) {
  if (Math.abs(a.length - b.length) > 2) return Infinity;
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i].concat(Array(b.length).fill(0)));
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

// The languages the build offers, each with its name in itself (`names`, for its button, written the way
// `directions` says); the first one: ?lang= (any the build has a catalog for), else the browser's own when
// offered (not a kiosk's, whose browser is the museum's), else the museum's first. Only that one's catalog
// is fetched.
async function chooseLanguage(languages, names, directions) {
  offered = languages.length ? languages : ["en"];
  ids = await (await fetch("language/messages.json")).json();
  const asked = (params.get("lang") || "").trim().toLowerCase();
  const ownCatalog = /^[a-z]{2,3}$/.test(asked) && (await fetch("language/" + asked + ".json", { method: "HEAD" })).ok;
  const browser = kiosk ? [] : (navigator.languages || []).map((code) => code.split("-")[0].toLowerCase());
  home = ownCatalog ? asked : browser.find((code) => offered.includes(code)) || offered[0];
  if (ownCatalog && !offered.includes(asked)) offered = [asked].concat(offered);
  if (kiosk && ownCatalog) home = asked;
  if (asked && !ownCatalog) {
    optionProblems.push(`lang: ${asked.slice(0, 40)} is not a language of this page (${offered.join(", ")}): `
                        + `${home} is shown`);
  }
  await loadLanguage(home);
  languageNames = Object.assign({ [home]: lang.name }, names);
  languageDirections = Object.assign({ [home]: lang.dir }, directions);
  buildLanguages();
  drawTexts();
  drawStarting();
}

// What the page says while MicroPython starts (seconds on a slow phone), before the machine is drawn.
function drawStarting() {
  $("machine-title").textContent = _("Loading…");
  $("status").textContent = _("Starting MicroPython, which runs the machine in this page…");
}

// --- following an exhibit -----------------------------------------------------------------
const link = { state: "connecting", exhibit: null, online: null, since: null, problem: null };
let offset = null;            // page time minus the exhibit's clock, at most (this window and the last)
let offsets = [null, null];
let windowStart = 0;
let run = null;

function clockNow() {
  return following ? now() - (offset === null ? 0 : offset) : now();
}

// A message says the exhibit's clock was `exhibitMs` when it left: the page's clock minus it is an
// upper bound of the difference between the clocks (the message took some time to come), so the
// smallest of them is the best. Windows let a drift between the clocks in; a new run of the exhibit
// (a reboot starts its clock again) forgets what was seen.
function observe(exhibitMs, ofRun) {
  const seen = now() - exhibitMs;
  if (ofRun !== run) {
    run = ofRun;
    offsets = [null, null];
  }
  if (now() - windowStart > CLOCK_WINDOW_MS) {
    offsets = [offsets[1], null];
    windowStart = now();
  }
  offsets[1] = offsets[1] === null ? seen : Math.min(offsets[1], seen);
  offset = offsets[0] === null ? offsets[1] : Math.min(offsets[0], offsets[1]);
}

// One line in the page's log (the connection panel), never more: text from the broker is shown, not run.
function logLine(text) {
  const line = String(text).split("\n")[0].slice(0, 300);
  window.nim.log.push(line);
  if (window.nim.log.length > 200) window.nim.log.shift();
  console.log("follow: " + line);
  const list = $("log");
  list.insertBefore(element("li", {}, null, line), list.firstChild);
  while (list.children.length > LOG_KEPT) list.removeChild(list.lastChild);
  tabStopIfScrolls(list);
}

function drawLink() {
  const where = params.get("follow");
  // "unreachable": no try has reached the broker yet (a wrong address, a broker not up): its address is said
  const words = { connecting: _("connecting to the broker…"), live: _("live"), reconnecting: _("reconnecting…"),
                  unreachable: fmt(_("cannot reach the broker at %(address)s, trying again…"),
                                   { address: apart(brokerShown()) }),
                  stopped: _("not following") }[link.state];
  let exhibit = "";
  if (link.online === false) {
    const since = link.since && sinceWhen(link.since);
    exhibit = " " + (since ? fmt(_("The exhibit is offline (since %(time)s): its last game is shown."), { time: since })
      : _("The exhibit is offline: its last game is shown."));
  } else if (link.state === "live" && !decl) {
    exhibit = " " + _("Waiting for the exhibit's game…");
  }
  if (!decl) {
    $("machine-title").textContent = fmt(_("Following %(exhibit)s"), { exhibit: apart(where) });
    $("status").textContent = link.state === "stopped"
      ? fmt(_("This screen cannot follow the exhibit: %(problem)s"), { problem: apart(link.problem) })
      : _("Waiting for the exhibit's game…");
  }
  const banner = $("follow-status");
  const text = fmt(_("Following %(exhibit)s: %(state)s."), { exhibit: apart(where), state: words }).replace("….", "…")
    + exhibit + (link.problem ? " " + apart(link.problem) : "");
  // a live region: written only when its words change, or a screen reader says them again (at every heartbeat)
  if (banner.textContent !== text) banner.textContent = text;
  banner.dataset.link = link.state;
  banner.dataset.online = link.online === null ? "unknown" : String(link.online);
  window.nim.follow = Object.assign({}, link);
}

// The broker's address as the screen and its log show it: without a user name or password written into it
// (ws://screen:secret@host/), which a visitor beside a kiosk would read.
function brokerShown() {
  return withoutLogIn(params.get("broker"));
}

// An address as a screen in a gallery may show it: never a log-in written into it, whether it parses or not, with
// its scheme or without (screen:secret@broker:9001/ parses, "screen:" taken for the scheme).
function withoutLogIn(address) {
  const bare = String(address).replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#@]*@/i, "$1");
  try {
    return new URL(bare).href;
  } catch (error) {
    return bare;
  }
}

// When the exhibit went offline, in the screen's language: the time, and the date when it is not today.
function sinceWhen(date) {
  const today = date.toDateString() === new Date().toDateString();
  return date.toLocaleString(lang.code, Object.assign(today ? {} : { year: "numeric", month: "long", day: "numeric" },
                                                      { hour: "2-digit", minute: "2-digit" }));
}

// An answer of the bridge's follower: its log line, then, once there is a machine, its drawing.
function followed(question) {
  let text;
  try {
    text = question();
  } catch (error) {
    window.nim.errors.push(String(error));
    logLine("the page's machine stopped on an error: " + String(error.message || error));
    return;
  }
  const reply = JSON.parse(text);
  if (reply.log) logLine(reply.log);
  if (!reply.view) return;
  observe(reply.now, reply.run);
  if (reply.restored) {
    outputs = {};
    if (!decl || decl.name !== reply.view.machine) {
      decl = machines[reply.view.machine];
      view = reply.view;
      build();
      drawLink();
    }
  }
  answer(reply);
  // an event drawn, when the bench asks how long it took (a restore or a quiet event draws nothing new)
  if (reply.restored || reply.commands.length === 0) return;
  const seq = reply.seq;
  requestAnimationFrame(() => {
    window.nim.drawn.push([seq, performance.timeOrigin + performance.now()]);
    if (window.nim.drawn.length > 2000) window.nim.drawn.shift();
  });
}

// `retained`: the broker's copy, kept from before this screen connected, not the status as it is sent.
function exhibitStatus(text, retained) {
  if (text === "") return;            // a retained status cleared: nothing said of the exhibit
  let status;
  try {
    status = JSON.parse(text);
  } catch (error) {
    return logLine("ignored a status: not JSON");
  }
  if (!status || typeof status !== "object" || status.exhibit !== params.get("follow")
      || typeof status.online !== "boolean") {
    return logLine("ignored a status: not the exhibit's {exhibit, online}");
  }
  if (status.online !== link.online) logLine(status.online ? "the exhibit is online" : "the exhibit went offline");
  link.online = status.online;
  link.since = null;
  if (!status.online && typeof status.at === "number" && Number.isFinite(status.at)) {
    const at = new Date(status.at * 1000);
    if (!Number.isNaN(at.getTime())) link.since = at;
  } else if (!status.online && !retained) {
    link.since = new Date();    // a last will has no time: the broker sends it as the exhibit goes
  }
  drawLink();
}

// What the address asks for, checked: one line naming the parameter when it does not fit.
function followSettings() {
  const exhibit = params.get("follow");
  const prefix = params.get("prefix") || "nim-museum";
  if (!exhibit || /[+#/\u0000]/.test(exhibit) || new TextEncoder().encode(exhibit).length > 64) {
    throw new Error(`follow: ${JSON.stringify(exhibit)} is not an exhibit's name (1 to 64 bytes, without + # /)`);
  }
  if (/[+#\u0000]/.test(prefix) || prefix.startsWith("/") || prefix.endsWith("/")) {
    throw new Error(`prefix: ${JSON.stringify(prefix)} is not a topic prefix such as nim-museum`);
  }
  let broker;
  try {
    broker = new URL(params.get("broker") || "");
  } catch (error) {
    broker = null;
  }
  if (!broker || (broker.protocol !== "ws:" && broker.protocol !== "wss:")) {
    const given = params.get("broker");
    throw new Error(`broker: ${JSON.stringify(given === null ? null : withoutLogIn(given))} is not a WebSockets address such as ws://broker.museum.lan:9001/`);
  }
  return { exhibit, topics: `${prefix}/${exhibit}/`, broker: broker.href };
}

async function follow() {
  let settings;
  try {
    settings = followSettings();
  } catch (error) {
    link.state = "stopped";
    link.problem = error.message;
    drawLink();
    window.nim.ready = true;
    return;
  }
  drawLink();
  setInterval(drawLink, 60000);         // "since 18:02" gains its date once that day is over
  const { default: mqtt } = await import("./mqtt/mqtt.esm.js");
  bridge.follow(settings.exhibit);
  const topics = { [settings.topics + "live/state"]: "state", [settings.topics + "live/event"]: "event",
                   [settings.topics + "status"]: "status" };
  const options = { clientId: "drnim-screen-" + Math.random().toString(16).slice(2, 10), clean: true,
                    reconnectPeriod: RECONNECT_MS, connectTimeout: CONNECT_TIMEOUT_MS, resubscribe: false,
                    keepalive: 30 };
  if (params.get("user")) Object.assign(options, { username: params.get("user"), password: params.get("password") || "" });
  const client = mqtt.connect(settings.broker, options);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  client.on("connect", () => {
    link.state = "live";
    link.problem = null;
    // a subscription, new at every connection, brings the retained state: the page catches up
    client.subscribe(Object.keys(topics), { qos: 0 }, (error) => {
      if (error) logLine("the broker refused the subscription: " + (error.message || error));
    });
    logLine("connected to " + brokerShown());
    drawLink();
  });
  // A connection lost is "reconnecting"; a broker never reached (and that never answered) is "unreachable".
  const lost = () => {
    if (link.state === "live") logLine("the connection to the broker was lost: reconnecting");
    if (link.state === "live" || link.state === "reconnecting") {
      link.state = "reconnecting";
    } else if (!link.problem) {
      if (link.state === "connecting") logLine(`no answer from ${brokerShown()}: trying again every ${RECONNECT_MS / 1000} s`);
      link.state = "unreachable";
    }
    drawLink();
  };
  client.on("close", lost);
  client.on("offline", lost);
  client.on("error", (error) => {
    const problem = "the broker: " + String(error.message || error);
    if (problem !== link.problem) logLine(problem);
    link.problem = problem;
    drawLink();
  });
  client.on("message", (topic, payload, packet) => {
    try {
      const kind = topics[topic];
      if (!kind) return logLine("ignored a message on a topic not followed");
      const what = kind === "status" ? "a status" : "a live " + kind;
      if (payload.length > LIVE_LIMIT) return logLine(`ignored ${what}: ${payload.length} bytes, more than ${LIVE_LIMIT}`);
      let text;
      try {
        text = decoder.decode(payload);
      } catch (error) {
        return logLine(`ignored ${what}: not UTF-8 text`);
      }
      if (kind === "status") return exhibitStatus(text, packet.retain);
      if (text === "") return logLine(`the exhibit's live ${kind} was cleared`);
      followed(() => bridge.follow_message(kind, text));
    } catch (error) {
      logLine(`ignored a message on ${topic}: ${error.message || error}`);
    }
  });
  window.nim.client = client;
  window.nim.ready = true;
}

// MicroPython did not start (its files did not come: the exhibit's computer asleep, a connection lost): the
// heading and the line under it say so in the visitor's language, and what to do, and it is announced; the
// reason, for a technician, stays in English, marked so. The machines' buttons can do nothing now.
let failure = null;

function drawFailure() {
  // Translators: the heading where the machine would be, when MicroPython, which runs it, did not start
  $("machine-title").textContent = _("The machine could not start");
  const status = $("status");
  // Translators: under that heading; the reason follows in English, for whoever looks after the exhibit
  status.textContent = _("Reload the page. If it does not start again, the exhibit's computer needs a look:") + " ";
  element("span", { lang: "en", dir: "ltr" }, status, failure);
}

boot().catch((error) => {
  window.nim.errors.push(String(error));
  failure = String(error.message || error);
  for (const button of $("machines").children) button.disabled = true;
  drawFailure();
  sayText(() => _("The machine could not start"), "error");
  announce();
});
