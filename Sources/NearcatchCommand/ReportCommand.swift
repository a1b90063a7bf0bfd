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
        print(try ReportFiles(html: output, svg: svg, force: force).write(data))
    }
}

/// Where a report goes: checked before anything runs, written whole or not at all.
struct ReportFiles {
    let html: String?
    let svg: String?
    let force: Bool

    private var htmlFile: OutputFile? { html.map { OutputFile(path: $0, flag: "--report", replace: force) } }

    private func svgFiles(in folder: String) -> [OutputFile] {
        ["room.svg", "distance-error.svg", "direction-error.svg", "bump-latency.svg"].map {
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

    /// Writes the files and says what was written.
    func write(_ data: ReportData) throws -> String {
        var said: [String] = []
        do {
            if let file = htmlFile {
                let page = Data(ReportPage.html(data).utf8)
                try file.write(page)
                let devices = data.every > 1
                    ? "\(data.devices.count) of \(data.peers) devices (one in \(data.every) followed)" : "\(data.peers) devices"
                said.append("report: \(file.path) (\(page.count / 1024) KB: \(data.frames.count) frames of \(devices), "
                    + "\(data.bumps.count) bumps, \(data.nearMisses.count) near misses)")
            }
            if let svg {
                if mkdir(svg, 0o755) != 0, errno != EEXIST {
                    throw ValidationError("--svg: cannot create the folder \(svg): \(String(cString: strerror(errno)))")
                }
                let pictures = ReportPictures.all(data)
                for (file, picture) in zip(svgFiles(in: svg), pictures) { try file.write(Data(picture.svg.utf8)) }
                said.append("pictures: \(pictures.map { (svg as NSString).appendingPathComponent($0.name) }.joined(separator: ", "))")
            }
        } catch let error as SimulationSettingsError {
            throw ValidationError(error.description)
        }
        return said.joined(separator: "\n")
    }
}
