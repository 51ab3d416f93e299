#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// evroute's one way to start a program: `posix_spawn` (never `fork`: the Swift runtime is
/// not fork-safe) with the given standard descriptors (stdin nil = /dev/null) and nothing else
/// open, every signal back to its default and none blocked (the daemon blocks and ignores some).
public enum Spawn {
    /// Starts `argv` with `environment` ("NAME=value"); returns the pid or the `posix_spawn`
    /// error number. `searchPath`: look `argv[0]` up in `PATH`. `newProcessGroup`: the child
    /// leads its own group (so a signal reaches a shell's children too).
    public static func start(_ argv: [String], environment: [String], stdin: FileDescriptor?, stdout: FileDescriptor,
                             stderr: FileDescriptor, searchPath: Bool, newProcessGroup: Bool) -> Result<pid_t, SystemError> {
        precondition(!argv.isEmpty)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin.rawValue, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout.rawValue, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr.rawValue, 2)
        _ = evroute_spawn_closefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer {
            for p in cArgv { free(p) }
            for p in cEnv { free(p) }
        }
        var pid: pid_t = 0
        let rc = searchPath
            ? posix_spawnp(&pid, argv[0], &actions, &attributes, &cArgv, &cEnv)
            : posix_spawn(&pid, argv[0], &actions, &attributes, &cArgv, &cEnv)
        return rc == 0 ? .success(pid) : .failure(SystemError(errno: rc, call: "posix_spawn", path: argv[0]))
    }
}
