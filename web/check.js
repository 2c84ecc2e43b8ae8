// Whether this browser can run the machines, asked before page.js runs: a classic script in the
// JavaScript every browser reads (no let, no arrow functions), so that an old one runs it too.
// The machines need WebAssembly (MicroPython's port) and the JavaScript of 2021: MicroPython's
// port asks for Safari 15, Chrome 85 or Firefox 79, and page.js calls Object.hasOwn (Safari 15.4,
// Chrome 93, Firefox 92). A browser without them showed "Starting MicroPython…" for ever (an old
// iPad's Safari, which cannot read page.js or the port), or "The machine could not start:
// WebAssembly is not defined" (an iPhone or iPad in Lockdown Mode, which turns WebAssembly off):
// a pupil or a visitor now reads why, and what plays the machines. The sentences are English
// only: the page's catalogs come with page.js.
(function () {
  var WEBASSEMBLY = "This browser does not run WebAssembly, which the machines need: it is turned off (on an " +
    "iPhone or iPad, by Lockdown Mode) or the browser is too old. Another browser or device plays them.";
  var TOO_OLD = "This browser is too old to run the machines: they need Chrome or Edge 93, Safari 15.4 (on an " +
    "iPhone or iPad, iOS 15.4) or Firefox 92, or newer.";

  function unable(sentence) {
    document.documentElement.className += " unable";
    document.getElementById("machine-title").textContent = "The machines cannot run here";
    document.getElementById("status").textContent = sentence;
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
