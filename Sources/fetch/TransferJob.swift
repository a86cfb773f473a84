// The run's transfers: each URL of the command line, expanded by curl's globbing (unless
// -g/--globoff), paired with its output (`-o` in order, `#N` filled in; `--remote-name-all`
// for the URLs without one).

/// One transfer to make.
struct TransferJob: Equatable {
    /// The URL as typed, after globbing.
    var url: String
    /// Where its body goes.
    var output: FetchOptions.Output?

    /// The jobs of `options`, and the first URL that failed to glob (the jobs stop before it).
    static func jobs(_ options: FetchOptions) -> ([TransferJob], (String, URLGlob.Failure)?) {
        var jobs: [TransferJob] = []
        for (index, url) in options.urls.enumerated() {
            let output = index < options.outputs.count ? options.outputs[index] : (options.extras.remoteNameAll ? .remoteName : nil)
            guard !options.extras.globOff else {
                jobs.append(TransferJob(url: url, output: output))
                continue
            }
            let glob: URLGlob
            do { glob = try URLGlob(url) } catch { return (jobs, (url, error)) }
            for expansion in glob.expansions {
                var named = output
                if case .file(let template) = output { named = .file(URLGlob.outputName(template, values: expansion.values)) }
                jobs.append(TransferJob(url: expansion.url, output: named))
            }
        }
        return (jobs, nil)
    }
}
