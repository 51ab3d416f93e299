import EvrouteCore

/// What a command line said, for one command: its options' values, its flags, its arguments.
public struct ParsedCommandLine: Sendable {
    /// The command's path (`["evroute", "check"]`).
    public let path: [String]
    let command: Command
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String: [String]] = [:]

    init(path: [String], command: Command) {
        self.path = path
        self.command = command
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An option's value (the last given), or nil.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option, in order.
    public func values(_ name: String) -> [String] { values[name] ?? [] }

    /// A positional argument (the first, for a repeated one).
    public func argument(_ name: String) -> String? { positionals[name]?.first }

    /// Every value of a repeated positional argument.
    public func arguments(_ name: String) -> [String] { positionals[name] ?? [] }

    /// A positional argument or option value read as a number; a malformed one is a usage error.
    public func number(_ name: String) throws(CommandLineExit) -> Double? {
        guard let text = argument(name) ?? value(name) else { return nil }
        guard let n = Double(text), n.isFinite else {
            throw usageError("'\(text)' is not a number (<\(name)>)")
        }
        return n
    }

    /// A usage error for this command: the message, its usage line and where help is.
    public func usageError(_ message: String) -> CommandLineExit {
        CommandLineParser.usageError(message, path: path, command: command)
    }

    mutating func add(_ option: CommandOption, _ value: String?) {
        switch option.kind {
        case .flag: flags.insert(option.name)
        case .value, .repeated: values[option.name, default: []].append(value ?? "")
        }
    }

    mutating func addPositional(_ name: String, _ value: String) { positionals[name, default: []].append(value) }
}

/// Parses argv against a ``Command`` tree and runs the chosen command.
public enum CommandLineParser {
    /// The flags every command has.
    static let help = CommandOption.flag("help", short: "h", help: "Show help information.")
    static let version = CommandOption.flag("version", short: "V", help: "Show the version.")

    /// Parses `arguments` (without argv[0]) and runs the command; returns the exit status after
    /// printing what the command or the parser had to say. `version` is printed for `--version`.
    public static func main(_ root: Command, arguments: [String], version: String,
                            output: (String) -> Void, errors: (String) -> Void) -> Int32 {
        do {
            switch try parse(root, arguments: arguments, version: version) {
            case .help(let text), .version(let text):
                output(text)
                return 0
            case .run(let parsed):
                guard let run = parsed.command.run else { throw parsed.usageError("a subcommand is required") }
                try run(parsed)
                return 0
            }
        } catch let exit as CommandLineExit {
            if !exit.message.isEmpty { errors(exit.message.hasSuffix("\n") ? exit.message : exit.message + "\n") }
            return exit.status
        } catch {
            errors("\(root.name): error: \(error)\n")
            return 1
        }
    }

    /// What a command line asks for.
    public enum Outcome: Sendable {
        /// Run this command with these values.
        case run(ParsedCommandLine)
        /// Print help (`--help`, `-h`, `help [COMMAND]`).
        case help(String)
        /// Print the version (`--version`).
        case version(String)
    }

    /// Parses without running. Usage errors are thrown as ``CommandLineExit`` with status 2.
    public static func parse(_ root: Command, arguments: [String], version: String) throws(CommandLineExit) -> Outcome {
        var command = root
        var path = [root.name]
        var index = 0
        // Subcommands come first: `evroute check …`; `evroute help check`.
        if arguments.first == "--version" || arguments.first == "-V" { return .version("\(root.name) \(version)\n") }
        if arguments.first == "help" {
            var target = root
            var targetPath = path
            for name in arguments.dropFirst() {
                guard let sub = target.subcommand(name) else {
                    throw usageError("unknown command '\(name)'", path: targetPath, command: target)
                }
                target = sub
                targetPath.append(name)
            }
            return .help(HelpText.help(for: target, path: targetPath))
        }
        // Options of a command that only groups subcommands may come before the subcommand
        // (`evroute ctl --control-socket PATH present confirm`); they carry over to it.
        var inherited: [(CommandOption, String?)] = []
        while index < arguments.count {
            let token = arguments[index]
            if let sub = command.subcommand(token) {
                command = sub
                path.append(sub.name)
                index += 1
                continue
            }
            guard command.run == nil, command.defaultSubcommand == nil, token.hasPrefix("-"), token != "--",
                  token != "--help", token != "-h", Double(token) == nil else { break }
            index += 1
            inherited.append(try takeOption(token, arguments, &index, path: path, command: command))
        }
        if command.run == nil, let name = command.defaultSubcommand, let sub = command.subcommand(name) {
            // `evroute --dry-run …` is `evroute route --dry-run …`; a word that names no
            // subcommand is a mistake, not an argument of the default one (it takes none).
            if index < arguments.count, !arguments[index].hasPrefix("-"), sub.arguments.isEmpty {
                var message = "unknown command '\(arguments[index])'"
                if let guess = closest(arguments[index], among: command.visibleSubcommands.map(\.name)) {
                    message += "; did you mean '\(guess)'?"
                }
                throw usageError(message, path: path, command: command)
            }
            if arguments[index...].contains(where: { $0 == "--help" || $0 == "-h" }) && !arguments[index...].contains("--") {
                return .help(HelpText.help(for: command, path: path))   // the tool's help: it names the default's options too
            }
            command = sub
            path.append(sub.name)
        }
        var parsed = ParsedCommandLine(path: path, command: command)
        for (option, value) in inherited { parsed.add(option, value) }
        var positionals: [String] = []
        var optionsEnded = false
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || !token.hasPrefix("-") || token == "-" || Double(token) != nil {
                positionals.append(token)
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            if token == "--help" || token == "-h" { return .help(HelpText.help(for: command, path: path)) }
            if token == "--version" || token == "-V" { return .version("\(root.name) \(version)\n") }
            let (option, value) = try takeOption(token, arguments, &index, path: path, command: command)
            parsed.add(option, value)
        }
        var remaining = positionals[...]
        for argument in command.arguments {
            if argument.isRepeated {
                for value in remaining { parsed.addPositional(argument.name, value) }
                remaining = []
            } else if let value = remaining.popFirst() {
                parsed.addPositional(argument.name, value)
            } else if !argument.isOptional {
                throw usageError("missing argument <\(argument.name)>", path: path, command: command)
            }
        }
        if let extra = remaining.first {
            let message = command.subcommands.isEmpty ? "unexpected argument '\(extra)'" : "unknown command '\(extra)'"
            throw usageError(message, path: path, command: command)
        }
        return .run(parsed)
    }


    /// Reads one option token (and its value, from `=`, the token's rest or the next argument).
    static func takeOption(_ token: String, _ arguments: [String], _ index: inout Int, path: [String],
                           command: Command) throws(CommandLineExit) -> (CommandOption, String?) {
        let option: CommandOption
        var inline: String?
        if token.hasPrefix("--") {
            var name = String(token.dropFirst(2))
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let found = command.option(long: name) else {
                var message = "unknown option '--\(name)'"
                if let guess = closest(name, among: command.options.filter { !$0.isHidden }.map(\.name)) {
                    message += "; did you mean '--\(guess)'?"
                }
                throw usageError(message, path: path, command: command)
            }
            option = found
        } else {
            let letters = Array(token.dropFirst())
            guard let found = command.option(short: letters[0]) else {
                throw usageError("unknown option '-\(letters[0])'", path: path, command: command)
            }
            option = found
            if letters.count > 1 { inline = String(letters.dropFirst()) }
        }
        let value: String?
        if option.kind == .flag {
            if let inline { throw usageError("'--\(option.name)' takes no value (got '\(inline)')", path: path, command: command) }
            value = nil
        } else if let inline {
            value = inline
        } else {
            guard index < arguments.count else {
                throw usageError("missing value for '--\(option.name) <\(option.valueName)>'", path: path, command: command)
            }
            value = arguments[index]
            index += 1
        }
        if let value, !option.choices.isEmpty, !option.choices.contains(value) {
            throw usageError("'\(value)' is not a valid value for '--\(option.name)' (one of: \(option.choices.joined(separator: ", ")))",
                             path: path, command: command)
        }
        return (option, value)
    }

    static func usageError(_ message: String, path: [String], command: Command) -> CommandLineExit {
        .usage("\(path.joined(separator: " ")): error: \(message)\n"
               + "Usage: \(HelpText.usage(for: command, path: path))\n"
               + "See '\(path.joined(separator: " ")) --help'.")
    }

    /// The candidate a misspelt `word` most likely meant: the one did-you-mean rule of evroute
    /// (``Spelling/closest(to:in:)``, which the config reader and run-time control use too).
    static func closest(_ word: String, among candidates: [String]) -> String? {
        Spelling.closest(to: word, in: candidates)
    }
}
