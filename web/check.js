// Whether this browser can run the machines, asked before page.js runs: a classic script in the
// JavaScript every browser reads (ES5: no let, no arrow functions), so that an old one runs it too.
// The machines need WebAssembly (MicroPython's port) and the JavaScript of 2021: MicroPython's
// port asks for Safari 15, Chrome 85 or Firefox 79, and page.js calls Object.hasOwn (Safari 15.4,
// Chrome 93, Firefox 92). A browser without them showed "Starting MicroPython…" for ever (an old
// iPad's Safari, which cannot read page.js or the port), or "The machine could not start:
// WebAssembly is not defined" (an iPhone or iPad in Lockdown Mode, which turns WebAssembly off):
// a pupil or a visitor now reads why, and what plays the machines, in their language. Its texts
// are in the catalogs (context "browser check"); the build writes each catalog's into index.html
// (#check-languages), since a browser that cannot read page.js must not depend on it to fetch one.
(function () {
  var languages = JSON.parse(document.getElementById("check-languages").textContent);
  var code = chosen();
  var catalog = languages.catalogs[code] || { dir: "ltr", texts: {} };

  // A parameter of the page's address, as URLSearchParams gives it ("" when it is not there).
  function parameter(name) {
    var found = new RegExp("[?&]" + name + "=([^&]*)").exec(location.search);
    try {
      return found ? decodeURIComponent(found[1].replace(/\+/g, " ")) : "";
    } catch (malformed) {
      return "";
    }
  }

  // The visitor's language, as page.js chooses it: ?lang= (any the build has a catalog for), else the
  // browser's own when the page offers it (not a kiosk's, whose browser is the museum's), else the museum's first.
  function chosen() {
    var asked = parameter("lang").trim();
    var browser = parameter("kiosk") === "1" ? [] : navigator.languages || [navigator.language || ""];
    var i, each;
    if (/^[a-z]{2,3}$/.test(asked) && languages.catalogs.hasOwnProperty(asked)) return asked;
    for (i = 0; i < browser.length; i++) {
      each = browser[i].split("-")[0].toLowerCase();
      if (languages.offered.indexOf(each) >= 0) return each;
    }
    return languages.offered[0];
  }

  // A text in the visitor's language (its English when the catalog has none).
  function _p(context, text) {
    var forms = catalog.texts[context + "\u0004" + text];
    return forms ? forms[0] : text;
  }

  // Translators: said where the machine would be, in a browser that cannot run it (an old iPad's, say)
  var WEBASSEMBLY = _p("browser check", "This browser does not run WebAssembly, which the machines need: it is " +
    "turned off (on an iPhone or iPad, by Lockdown Mode) or the browser is too old. Another browser or device " +
    "plays them.");
  var TOO_OLD = _p("browser check", "This browser is too old to run the machines: they need Chrome or Edge 93, " +
    "Safari 15.4 (on an iPhone or iPad, iOS 15.4) or Firefox 92, or newer.");

  function unable(sentence) {
    var title = document.getElementById("machine-title"), status = document.getElementById("status");
    document.documentElement.className += " unable";
    // Translators: the heading of either sentence, in place of the machine's name
    title.textContent = _p("browser check", "The machines cannot run here");
    status.textContent = sentence;
    title.lang = status.lang = code;
    title.dir = status.dir = catalog.dir;
  }

  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") {
    unable(WEBASSEMBLY);
  } else if (!("noModule" in document.createElement("script")) || typeof Object.hasOwn !== "function") {
    unable(TOO_OLD);
  } else {
    // page.js or the port written in JavaScript newer than this browser reads: a SyntaxError before page.js ran
    window.addEventListener("error", function (event) {
      if (!window.nim && event.error instanceof SyntaxError) unable(TOO_OLD);
    });
  }
}());
