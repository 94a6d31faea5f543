//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: the photo pipeline's entry point (issue 19). Built by fuzz/run.sh, which compiles this file with
// Sources/SwitchboardImages/*.swift into one module (so internal API is reachable) and links Debian's libvips.
// Every input goes through the sniffer and the pure-Swift header reader, which must agree with each other and never
// claim a zero size; then through the whole pipeline with small limits (256 x 256 pixels at most, so libvips'
// decoders and encoders run on every accepted input quickly), whose results must respect those limits.

let fuzzLimits = ImageLimits(
    maxInputBytes: 256 * 1024, maxPixels: 65_536, displaySize: 64, thumbnailSize: 16, webpQuality: 50, webpEffort: 0,
    jpegQuality: 50)

@_cdecl("LLVMFuzzerTestOneInput")
public func imageFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let sniffed = Result { () throws(ImageError) in try ImageSniffer.format(of: bytes) }
    let header = Result { () throws(ImageError) in try ImageSniffer.header(of: bytes) }
    let format = try? sniffed.get()
    switch (sniffed, header) {
    case (.failure(let sniffError), .failure(let headerError)):
        // The header reader starts by sniffing: it must fail the same way.
        precondition(sniffError == headerError, "sniffer threw \(sniffError), header reader \(headerError)")
        if case .empty = sniffError { precondition(size == 0, "non-empty input called empty") }
    case (.failure(let sniffError), .success):
        preconditionFailure("sniffer threw \(sniffError) but the header reader accepted the input")
    case (.success(let sniffedFormat), .success(let found)):
        precondition(found.format == sniffedFormat, "header format \(found.format) but sniffed \(sniffedFormat)")
        precondition(found.width >= 1 && found.height >= 1, "zero size accepted")
    case (.success, .failure(let headerError)):
        // Corrupt, or an AV1 item found under a generic HEIF brand.
        if case .corrupt = headerError { break }
        precondition(headerError == .unsupportedFormat("avif"), "header reader threw \(headerError)")
    }
    do throws(ImageError) {
        let image = try ImagePipeline.process(bytes: bytes, limits: fuzzLimits)
        precondition(image.format == format, "pipeline format differs from the sniffer's")
        precondition(image.width * image.height <= fuzzLimits.maxPixels, "pixel limit exceeded")
        for rendition in [image.display, image.thumbnail] {
            precondition(rendition.width >= 1 && rendition.height >= 1, "empty rendition")
            precondition(!rendition.webp.isEmpty && !rendition.jpeg.isEmpty, "empty output")
        }
        precondition(max(image.display.width, image.display.height) <= 64, "display over its size")
        precondition(max(image.thumbnail.width, image.thumbnail.height) <= 16, "thumbnail over its size")
        precondition(image.sha256.count == 32 && image.dominantColor.utf8.count == 7, "bad digest or colour")
    } catch {
        if case .processingFailed(let reason) = error { preconditionFailure("processingFailed: \(reason)") }
    }
    return 0
}
