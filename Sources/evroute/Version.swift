/// evroute's version: `evroute --version`, `evroute status`, the man page and the package.
/// Bumped with each release; the Makefile's `deb` target reads it from here.
let evrouteVersion = "0.5.0"
