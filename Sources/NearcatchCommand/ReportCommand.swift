import ArgumentParser
import Foundation
import Report
import Simulation

/// `nearcatch-sim report TRACE -o FILE.html`: a run's pictures from its trace.
package struct ReportCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Make an HTML report (and SVG pictures) of a run from its trace.",
        discussion: """
            The report is one self-contained HTML file (no network, no external script or font): the room from \
            above with every device's track, the bumps and near misses where they happened and a time slider to \
            replay the run; the true distance and the estimate of a chosen pair around its bump or near miss; the \
            error distributions, the update rates by distance and the air used; the run's settings and summary. \
            --svg writes the room and the error plots as SVG files. docs/report.md.
            """
    )

    @Argument(help: "A trace written by `nearcatch-sim --trace FILE` (JSON Lines).")
    var trace: String

    @Option(name: [.customShort("o"), .long], help: "The HTML file to write.")
    var output: String?

    @Option(help: "Also write room.svg, distance-error.svg, direction-error.svg and bump-latency.svg into this folder (created if missing).")
    var svg: String?

    @Flag(help: "Replace files that exist.")
    var force = false

    package init() {}

    package func validate() throws {
        try require(output != nil || svg != nil, "give -o FILE.html, --svg DIR or both")
        try ReportFiles(html: output, svg: svg, force: force).check()
    }

    package func run() throws {
        let data: ReportData
        do {
            data = try ReportData.read(trace: trace)
        } catch {
            throw ValidationError(error.description)
        }
        do {
            print(try ReportFiles(html: output, svg: svg, force: force).write(data))
        } catch {
            // The paths were right (checked before); the disk or a file that appeared since said no: one line, and
            // EX_IOERR, not the usage text.
            FileHandle.standardError.write(Data("error: \(error.message)\n".utf8))
            throw ExitCode(RunCommand.unpublishedStatus)
        }
    }
}

/// Where a report goes: checked before anything runs, written whole or not at all.
struct ReportFiles {
    let html: String?
    let svg: String?
    let force: Bool

    /// Files that could not be written though their paths were checked: nothing of them was published.
    struct Unwritten: Error {
        let message: String
    }

    /// Whether two paths name the same file: the same path once made absolute and standard, or, both existing, the
    /// same file on the same device (a link, a second name).
    static func same(_ a: String, _ b: String) -> Bool {
        let standard = { (p: String) in URL(fileURLWithPath: p).standardizedFileURL.path }
        if standard(a) == standard(b) { return true }
        var x = stat(), y = stat()
        return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// The picture files' names in the `--svg` folder.
    static let pictureNames = ["room.svg", "distance-error.svg", "direction-error.svg", "bump-latency.svg"]

    private var htmlFile: OutputFile? { html.map { OutputFile(path: $0, flag: "--report", replace: force) } }

    private func svgFiles(in folder: String) -> [OutputFile] {
        Self.pictureNames.map {
            OutputFile(path: (folder as NSString).appendingPathComponent($0), flag: "--svg", replace: force)
        }
    }

    /// Checks every path before anything runs: the HTML file as any output file (``OutputFile/check()``); the
    /// pictures' folder, when it exists, for a folder in which files can be created, and otherwise for a parent in
    /// which it can be.
    func check() throws {
        do {
            try htmlFile?.check()
            if let svg {
                var info = stat()
                if lstat(svg, &info) == 0 {
                    var target = stat()
                    let found = stat(svg, &target) == 0
                    try require(!found || target.st_mode & S_IFMT != S_IFREG, "--svg: \(svg) is a file, not a folder")
                    try require(found && target.st_mode & S_IFMT == S_IFDIR,
                                "--svg: \(svg) is not a folder; name a folder to write the pictures into")
                    try OutputFile.checkFolder(svg, flag: "--svg")
                    for file in svgFiles(in: svg) { try file.check() }
                } else {
                    let parent = (svg as NSString).deletingLastPathComponent
                    try require(parent.isEmpty || FileManager.default.fileExists(atPath: parent),
                                "--svg: the folder \(parent) for \(svg) does not exist")
                    try OutputFile.checkFolder(parent.isEmpty ? "." : parent, flag: "--svg")
                }
            }
        } catch let error as SimulationSettingsError {
            throw ValidationError(error.description)
        }
    }

    /// Writes the files and says what was written: every file staged first, then every one published, so that a
    /// full disk leaves none of them (it left one picture of four), nor does a file that appeared at one of the
    /// paths since the check (the ones published before it are taken back).
    ///
    /// - Throws: ``Unwritten`` naming the option, the path and the cause.
    func write(_ data: ReportData) throws(Unwritten) -> String {
        var said: [String] = []
        var staged: [OutputFile] = []
        var published = 0
        var madeFolder = false
        do {
            if let file = htmlFile {
                let page = Data(ReportPage.html(data).utf8)
                try file.stage(page)
                staged.append(file)
                let devices = data.every > 1
                    ? "\(data.devices.count) of \(data.peers) devices (one in \(data.every) followed)" : "\(data.peers) devices"
                said.append("report: \(file.path) (\(page.count / 1024) KB: \(data.frames.count) frames of \(devices), "
                    + "\(data.bumps.count) bumps, \(data.nearMisses.count) near misses)")
            }
            if let svg {
                if mkdir(svg, 0o755) == 0 {
                    madeFolder = true
                } else if errno != EEXIST {
                    throw SimulationSettingsError(
                        message: "--svg: cannot create the folder \(svg): \(String(cString: strerror(errno)))")
                }
                let pictures = ReportPictures.all(data)
                for (file, picture) in zip(svgFiles(in: svg), pictures) {
                    try file.stage(Data(picture.svg.utf8))
                    staged.append(file)
                }
                said.append("pictures: \(pictures.map { (svg as NSString).appendingPathComponent($0.name) }.joined(separator: ", "))")
            }
            // Replacing cannot be undone: what stands at every path is looked at before the first is replaced.
            if force { for file in staged { try file.checkReplaceable() } }
            while published < staged.count {
                try staged[published].publish()
                published += 1
            }
        } catch {
            // Without --force a file is published only where none was (link(2)): taking it back loses nothing, and
            // a file that appeared at the third path since the check leaves none of the four.
            if !force { for file in staged.prefix(published) { unlink(file.path) } }
            for file in staged.dropFirst(published) { file.discardTemporary() }
            if madeFolder, let svg { rmdir(svg) }
            throw Unwritten(message: "\(error)")
        }
        return said.joined(separator: "\n")
    }
}
