/// evroute's version: `evroute --version`, `evroute status`, the man pages and the Debian package
/// (the Makefile reads it from this line). Bumped with each release.
public let evrouteVersion = "0.5.0"
