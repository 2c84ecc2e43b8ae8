"""The replicas in a web page: `controller web build` and `controller web serve`.

The page (web/ in the repository) runs the core's machines unchanged in
MicroPython's WebAssembly port; this package only assembles the static
folder and serves it on localhost for a try.
"""
