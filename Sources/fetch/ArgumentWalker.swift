// Walks an argument vector as curl does: bundled short options (-fsSL), glued values (-XPOST,
// -m5, -ofile), `--` ends options, `--no-NAME` turns a switch off, anything else is a URL.
// `-K FILE` splices the file's options in at that point (ConfigFile).

/// Turns arguments into an ``Invocation`` through the ``OptionTable``.
struct ArgumentWalker {
    /// Reads a `-K` file's text (`-` is standard input); injected so tests need no files.
    var readConfig: (String) -> String?
    /// How deep `-K` files include each other (curl stops loops the same way).
    private var depth = 0

    /// A walker reading `-K` files with `read`.
    init(readConfig: @escaping (String) -> String?) {
        self.readConfig = readConfig
    }

    /// The invocation `arguments` (without the program name) ask for.
    /// - Parameter defaultConfig: the `.curlrc` read first unless the first argument starts
    ///   with `-q` or is `--disable` (curl's rule); nil reads none.
    static func parse(
        _ arguments: [String], readConfig: @escaping (String) -> String? = ConfigFile.readText, defaultConfig: String? = nil
    ) throws(FetchUsageError) -> Invocation {
        var walker = ArgumentWalker(readConfig: readConfig)
        var options = FetchOptions()
        let disabled = arguments.first.map { $0.hasPrefix("-q") || $0 == "--disable" } ?? false
        do {
            if !disabled, let defaultConfig, let text = readConfig(defaultConfig) {
                if let stop = try walker.apply(ConfigFile.lines(text), path: defaultConfig, into: &options) { return stop }
            }
            if let stop = try walker.walk(arguments, into: &options) { return stop }
        } catch {
            if let stop = error.stop { return stop }
            throw error
        }
        // --next groups: each is checked as a whole command line; a last group without a URL
        // after others is curl's "no URL specified!" once the others ran.
        var groups = options.previousGroups
        options.previousGroups = []
        let trailingEmpty = options.urls.isEmpty && !groups.isEmpty
        if !trailingEmpty { groups.append(options) }
        // curl says only "try --help" when given nothing at all.
        guard !groups[0].urls.isEmpty else { throw FetchUsageError(description: arguments.isEmpty ? "" : "no URL specified!") }
        for group in groups {
            try checkMethods(group)
            try checkOutputs(group)
        }
        var first = groups[0]
        first.following = Array(groups.dropFirst())
        first.endsWithEmptyGroup = trailingEmpty
        return .run(first)
    }

    /// curl refuses two ways of choosing the method at once (`-d` with `-F`, `-I` with a body),
    /// with a warning that `-s` hides, and exit 2.
    static func checkMethods(_ options: FetchOptions) throws(FetchUsageError) {
        let data = !options.data.isEmpty && !options.dataInQuery
        let other: String
        if data && !options.form.isEmpty {
            other = "multipart formpost (-F, --form)"
        } else if options.headOnly && (data || !options.form.isEmpty) {
            other = "HEAD (-I, --head)"
        } else {
            return
        }
        let first = data ? "POST \n(-d, --data)" : "multipart formpost \n(-F, --form)"
        let text = "You can only select one HTTP request method! You asked for both \(first) and \(other)."
        let lines = text.split(separator: "\n").map { "Warning: \($0)" }
        throw FetchUsageError(description: text, hint: false, warning: options.silent ? [] : lines)
    }

    /// curl refuses `-C` with `-J`: resuming would append the server's bytes to whatever file
    /// the server names (exit 2, curl 7.88's message).
    static func checkOutputs(_ options: FetchOptions) throws(FetchUsageError) {
        guard options.continueAt != nil && options.remoteHeaderName else { return }
        throw FetchUsageError(description: "--continue-at and --remote-header-name cannot be combined")
    }

    /// Applies `arguments` to `options`; returns an invocation that replaces the run (`-h`, `-V`).
    mutating func walk(_ arguments: [String], into options: inout FetchOptions) throws(FetchUsageError) -> Invocation? {
        var index = 0
        var optionsEnded = false
        /// The argument after the current one, consumed as its value.
        func nextValue(for option: String) throws(FetchUsageError) -> String {
            index += 1
            guard index < arguments.count else { throw .missingValue(option) }
            return arguments[index]
        }
        while index < arguments.count {
            defer { index += 1 }
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                options.urls.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if name == "config" {
                    try include(try nextValue(for: argument), into: &options)
                    continue
                }
                if let spec = try OptionTable.long(name, as: argument) {
                    switch spec.action {
                    case .flag(let apply): try apply(&options, true)
                    case .value(let apply): try apply(&options, try nextValue(for: argument))
                    case .stop(let invocation): return try stop(invocation, next: index + 1 < arguments.count ? arguments[index + 1] : nil)
                    }
                } else if name.hasPrefix("no-"), let spec = try OptionTable.long(String(name.dropFirst(3)), as: argument) {
                    // curl: `--no-` only reverses a switch.
                    guard case .flag(let apply) = spec.action else {
                        throw FetchUsageError(description: "option \(argument): used '--no-' for option that isn't a boolean")
                    }
                    try apply(&options, false)
                } else {
                    throw .unknown(argument)
                }
            } else {
                // A bundle of short options; the first one that takes a value takes the rest of
                // the argument (glued) or the next argument.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    letters = letters.dropFirst()
                    if letter == "K" {
                        try include(letters.isEmpty ? try nextValue(for: "-K") : String(letters), into: &options)
                        break
                    }
                    guard let spec = OptionTable.short(letter) else { throw .unknown(argument) }  // curl names the whole bundle
                    switch spec.action {
                    case .flag(let apply):
                        try apply(&options, true)
                        continue
                    case .value(let apply):
                        try apply(&options, letters.isEmpty ? try nextValue(for: "-\(letter)") : String(letters))
                    case .stop(let invocation):
                        return try stop(invocation, next: index + 1 < arguments.count ? arguments[index + 1] : nil)
                    }
                    break
                }
            }
        }
        return nil
    }

    /// `-h`/`-V`: curl's `-h` takes the next argument, whatever it is, as the help category.
    private func stop(_ invocation: Invocation, next: String?) throws(FetchUsageError) -> Invocation {
        guard case .help = invocation else { return invocation }
        return .help(next)
    }

    /// `-K FILE`: the file's options, applied where `-K` stands.
    private mutating func include(_ path: String, into options: inout FetchOptions) throws(FetchUsageError) {
        guard depth < 10 else { throw FetchUsageError(description: "config files nested too deep at \(path)") }
        guard let text = readConfig(path) else {
            throw FetchUsageError(status: 26, description: "(26) Failed to open/read config file \(path)", hint: false)
        }
        depth += 1
        defer { depth -= 1 }
        // A -h inside a -K file stops the run as on the command line.
        if let stop = try apply(ConfigFile.lines(text), path: path, into: &options) { throw .stopped(stop) }
    }

    /// Applies a config file's lines; a bad line is curl's warning (`FILE:N: warning: 'OPT'
    /// REASON`, hidden by an earlier `-s`), and the next line is read.
    mutating func apply(_ lines: [ConfigFile.Line], path: String, into options: inout FetchOptions) throws(FetchUsageError) -> Invocation? {
        let name = path == "-" ? "<stdin>" : path
        for line in lines {
            if line.trailingText && !options.silent {
                options.parseWarnings += curlWarningLines("\(name):\(line.number): warning: '\(line.option)' uses unquoted whitespace in the line that may cause side-effects!")
            }
            do {
                if let stop = try applyLine(line, into: &options) { return stop }
            } catch where error.stop == nil {
                guard !options.silent else { continue }
                options.parseWarnings += curlWarningLines("\(name):\(line.number): warning: '\(line.option)' \(error.reason)")
            }
        }
        return nil
    }

    /// One config line: the option with its value, if it takes one.
    private mutating func applyLine(_ line: ConfigFile.Line, into options: inout FetchOptions) throws(FetchUsageError) -> Invocation? {
        let argument = line.argument
        let takesValue: Bool
        if argument == "--config" || argument == "-K" {
            takesValue = true
        } else if argument.hasPrefix("--") {
            var spec = try OptionTable.long(String(argument.dropFirst(2)), as: argument)
            if spec == nil && argument.hasPrefix("--no-") { spec = try OptionTable.long(String(argument.dropFirst(5)), as: argument) }
            guard let spec else { throw .unknown(argument) }
            takesValue = spec.takesValue
        } else {
            takesValue = argument.count == 2 && (argument.last.flatMap(OptionTable.short)?.takesValue ?? false)
        }
        if takesValue {
            guard let value = line.value else { throw .missingValue(argument) }
            return try walk([argument, value], into: &options)
        }
        let stop = try walk([argument], into: &options)
        if line.value != nil { throw FetchUsageError(description: "option \(argument): had unsupported trailing garbage") }
        return stop
    }
}
