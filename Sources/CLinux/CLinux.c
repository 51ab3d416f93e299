// The CLinux target is header-only; this file gives SwiftPM something to compile.
