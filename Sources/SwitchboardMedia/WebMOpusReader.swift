//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Reads the Opus track of a WebM (or Matroska) file with our own strict EBML reader, and decodes it with libopus.
///
/// Works for MediaRecorder's live output: a Segment and Clusters of unknown size, no Duration, no Cues.
/// An unknown-size Cluster ends at the first element that cannot be its child (the next Cluster, Cues, ...).
/// The first track with `CodecID` `A_OPUS` is used; other tracks (video) are skipped. `SimpleBlock`s and
/// `BlockGroup/Block`s are read, with no lacing or Xiph, fixed-size or EBML lacing. Pre-skip comes from the
/// `OpusHead` in `CodecPrivate` (it equals `CodecDelay`); `DiscardPadding` in a BlockGroup trims the end.
public enum WebMOpusReader {
    /// Limits on metadata element sizes: a string or integer, `CodecPrivate`, a whole `Tracks` element, a block.
    static let maxStringBytes = 1024
    static let maxCodecPrivateBytes = 4096
    static let maxTracksBytes = 1 << 20
    static let maxBlockBytes = 1 << 20
    /// At most this many packets are collected (at least 2.5 ms each: over 20 minutes); more is `tooLong`.
    static let maxPackets = 1 << 19

    enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3
        static let segment: UInt32 = 0x1853_8067
        static let tracks: UInt32 = 0x1654_AE6B
        static let trackEntry: UInt32 = 0xAE
        static let trackNumber: UInt32 = 0xD7
        static let codecID: UInt32 = 0x86
        static let codecPrivate: UInt32 = 0x63A2
        static let cluster: UInt32 = 0x1F43_B675
        static let simpleBlock: UInt32 = 0xA3
        static let blockGroup: UInt32 = 0xA0
        static let block: UInt32 = 0xA1
        static let discardPadding: UInt32 = 0x75A2
        /// IDs that may appear inside a Cluster (Timecode, SilentTracks, Position, PrevSize, SimpleBlock,
        /// BlockGroup, EncryptedBlock, Void, CRC-32).
        static let clusterChildren: Set<UInt32> = [0xE7, 0x5854, 0xA7, 0xAB, 0xA3, 0xA0, 0xAF, 0xEC, 0xBF]
    }

    /// The audio of the file before decoding: the Opus head and every packet of the track.
    struct Track {
        var head: OpusHead
        /// Byte ranges of the packets, with the samples `DiscardPadding` removes from the end of each.
        var packets: [(range: Range<Int>, discard: Int)] = []
        /// Samples per channel at 48 kHz of all packets (from their TOC bytes), minus discard padding.
        var totalSamples = 0

        /// Checks a packet's TOC and appends it.
        mutating func append(_ range: Range<Int>, discard: Int, in bytes: UnsafeRawBufferPointer) throws(VoiceError) {
            let n = try OpusPacketDecoder.sampleCount(UnsafeRawBufferPointer(rebasing: bytes[range]))
            if packets.count >= WebMOpusReader.maxPackets {
                throw .tooLong(durationMs: durationInMilliseconds(frames: totalSamples, sampleRate: 48_000))
            }
            packets.append((range, discard))
            totalSamples += n - min(n, discard)
        }
    }

    /// Decodes the Opus track of a whole WebM file to mono Float32 at 48 kHz.
    ///
    /// - Throws: `VoiceError.malformed`, `.unsupportedType` (no Opus track).
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) -> DecodedAudio {
        var sink = CollectingSink()
        try decode(bytes, into: &sink)
        return sink.decoded
    }

    /// Decodes the Opus track of a whole WebM file, handing mono Float32 chunks at 48 kHz to `sink`.
    ///
    /// The whole container is parsed and every packet's TOC checked before `sink.begin` is called with the
    /// exact frame count.
    /// - Throws: `VoiceError.malformed`, `.unsupportedType`, or whatever `sink` throws.
    public static func decode<Sink: PCMSink>(_ bytes: UnsafeRawBufferPointer, into sink: inout Sink) throws(VoiceError)
    {
        let track = try parse(bytes)
        let frames = max(0, track.totalSamples - track.head.preSkip)
        try sink.begin(PCMStreamInfo(sampleRate: 48_000, inputChannels: track.head.channels, frameCount: frames))
        let decoder = try OpusPacketDecoder(channels: track.head.channels)
        let gain = track.head.linearGain
        var skip = track.head.preSkip
        var mono = [Float](repeating: 0, count: 5760)
        for packet in track.packets {
            let decoded = try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[packet.range]))
            let kept = decoded - min(decoded, packet.discard)
            let first = min(skip, kept)
            skip -= first
            let count = kept - first
            if count == 0 { continue }
            let channels = decoder.channels
            decoder.pcm.withUnsafeBufferPointer { pcm in
                for i in 0..<count {
                    let f = first + i
                    let v = channels == 2 ? (pcm[2 * f] + pcm[2 * f + 1]) * 0.5 : pcm[f]
                    mono[i] = v * gain
                }
            }
            try mono.withUnsafeBufferPointer { (buf) throws(VoiceError) in
                try sink.write(UnsafeBufferPointer(rebasing: buf[0..<count]))
            }
        }
    }

    /// Walks the EBML structure and collects the Opus track's packets.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(VoiceError) -> Track {
        let r = EBMLReader(bytes: bytes)
        let header = try r.element(at: 0, parentEnd: bytes.count)
        guard header.id == ID.ebml else { throw .malformed("WebM: no EBML header") }
        guard let docType = EBMLReader.docType(bytes), docType == "webm" || docType == "matroska" else {
            throw .unsupportedType
        }
        var pos = header.dataEnd
        var segment: EBMLReader.Element?
        while pos < bytes.count {
            let e = try r.element(at: pos, parentEnd: bytes.count, allowUnknownSize: true)
            if e.id == ID.segment {
                segment = e
                break
            }
            guard e.id == 0xEC, !e.unknownSize else { throw .malformed("WebM: unexpected top-level element") }
            pos = e.dataEnd
        }
        guard let segment else { throw .malformed("WebM: no Segment") }
        var track: Track?
        var trackNumber: UInt64 = 0
        var sawAudioTrack = false
        pos = segment.dataStart
        while pos < segment.dataEnd {
            let e = try r.element(at: pos, parentEnd: segment.dataEnd, allowUnknownSize: true)
            if e.unknownSize && e.id != ID.cluster {
                throw .malformed("WebM: unknown size on element 0x\(String(e.id, radix: 16)) at \(pos)")
            }
            switch e.id {
            case ID.tracks:
                guard track == nil else { throw .malformed("WebM: second Tracks element") }
                guard e.size <= maxTracksBytes else { throw .malformed("WebM: Tracks element too large") }
                (track, trackNumber, sawAudioTrack) = try parseTracks(r, e)
                pos = e.dataEnd
            case ID.cluster:
                guard track != nil else {
                    if sawAudioTrack { throw .unsupportedType }
                    throw .malformed("WebM: Cluster before Tracks")
                }
                pos = try parseCluster(r, e, trackNumber: trackNumber, into: &track!)
            default:
                pos = e.dataEnd
            }
        }
        guard let track else {
            if sawAudioTrack { throw .unsupportedType }
            throw .malformed("WebM: no Tracks element")
        }
        return track
    }

    /// Finds the first `A_OPUS` track. Returns it (or nil), its number, and whether any audio track was seen.
    static func parseTracks(
        _ r: EBMLReader,
        _ tracks: EBMLReader.Element
    ) throws(VoiceError) -> (Track?, UInt64, Bool) {
        var pos = tracks.dataStart
        var sawTrack = false
        while pos < tracks.dataEnd {
            let entry = try r.element(at: pos, parentEnd: tracks.dataEnd)
            pos = entry.dataEnd
            guard entry.id == ID.trackEntry else { continue }
            sawTrack = true
            var number: UInt64?
            var codec: String?
            var codecPrivate: EBMLReader.Element?
            var p = entry.dataStart
            while p < entry.dataEnd {
                let field = try r.element(at: p, parentEnd: entry.dataEnd)
                p = field.dataEnd
                switch field.id {
                case ID.trackNumber: number = try r.uint(field)
                case ID.codecID: codec = try r.string(field, maxLength: maxStringBytes)
                case ID.codecPrivate:
                    guard field.size <= maxCodecPrivateBytes else { throw .malformed("WebM: CodecPrivate too large") }
                    codecPrivate = field
                default: break
                }
            }
            guard codec == "A_OPUS" else { continue }
            guard let number, number > 0 else { throw .malformed("WebM: Opus track without a TrackNumber") }
            guard let codecPrivate else { throw .malformed("WebM: Opus track without CodecPrivate (OpusHead)") }
            let head = try OpusHead(
                UnsafeRawBufferPointer(rebasing: r.bytes[codecPrivate.dataStart..<codecPrivate.dataEnd]))
            return (Track(head: head), number, true)
        }
        return (nil, 0, sawTrack)
    }

    /// Reads one Cluster's blocks of the Opus track. Returns where the Cluster ends.
    static func parseCluster(
        _ r: EBMLReader,
        _ cluster: EBMLReader.Element,
        trackNumber: UInt64,
        into track: inout Track
    ) throws(VoiceError) -> Int {
        var pos = cluster.dataStart
        while pos < cluster.dataEnd {
            if cluster.unknownSize {
                let (id, _) = try r.readID(at: pos, limit: cluster.dataEnd)
                if !ID.clusterChildren.contains(id) { return pos }
            }
            let e = try r.element(at: pos, parentEnd: cluster.dataEnd)
            pos = e.dataEnd
            switch e.id {
            case ID.simpleBlock:
                try parseBlock(r, e, trackNumber: trackNumber, discard: 0, into: &track)
            case ID.blockGroup:
                var block: EBMLReader.Element?
                var discardNs: Int64 = 0
                var p = e.dataStart
                while p < e.dataEnd {
                    let child = try r.element(at: p, parentEnd: e.dataEnd)
                    p = child.dataEnd
                    if child.id == ID.block {
                        guard block == nil else { throw .malformed("WebM: two Blocks in one BlockGroup") }
                        block = child
                    } else if child.id == ID.discardPadding {
                        discardNs = try r.int(child)
                    }
                }
                guard let block else { throw .malformed("WebM: BlockGroup without a Block") }
                // Clamped to 1 s before scaling (no overflow); a packet holds at most 120 ms anyway.
                let discard = discardNs > 0 ? Int((min(discardNs, 1_000_000_000) * 48 + 500_000) / 1_000_000) : 0
                try parseBlock(r, block, trackNumber: trackNumber, discard: discard, into: &track)
            default:
                break
            }
        }
        return pos
    }

    /// Splits a (Simple)Block of the Opus track into its frames (lacing) and appends them.
    static func parseBlock(
        _ r: EBMLReader,
        _ block: EBMLReader.Element,
        trackNumber: UInt64,
        discard: Int,
        into track: inout Track
    ) throws(VoiceError) {
        guard block.size <= maxBlockBytes else { throw .malformed("WebM: block too large") }
        let end = block.dataEnd
        let (number, numberLength) = try r.readSize(at: block.dataStart, limit: end)
        guard let number else { throw .malformed("WebM: block with an invalid track number") }
        guard number == trackNumber else { return }
        var pos = block.dataStart + numberLength
        guard end - pos >= 3 else { throw .malformed("WebM: block header truncated") }
        let flags = r.bytes[pos + 2]
        pos += 3
        let lacing = (flags >> 1) & 0x03
        if lacing == 0 {
            try track.append(pos..<end, discard: discard, in: r.bytes)
            return
        }
        guard pos < end else { throw .malformed("WebM: laced block without a frame count") }
        let count = Int(r.bytes[pos]) + 1
        pos += 1
        var sizes: [Int] = []
        switch lacing {
        case 1:  // Xiph
            for _ in 0..<(count - 1) {
                var size = 0
                while true {
                    guard pos < end else { throw .malformed("WebM: Xiph lacing truncated") }
                    let b = Int(r.bytes[pos])
                    pos += 1
                    size += b
                    if b < 255 { break }
                }
                sizes.append(size)
            }
        case 3:  // EBML
            if count >= 2 {
                let (first, firstLength) = try r.readSize(at: pos, limit: end)
                guard let first, first <= UInt64(end - pos) else { throw .malformed("WebM: bad EBML lace size") }
                pos += firstLength
                var size = Int64(first)
                sizes.append(Int(size))
                for _ in 0..<(count - 2) {
                    let (raw, length) = try r.readSize(at: pos, limit: end)
                    guard let raw else { throw .malformed("WebM: EBML lacing with unknown size") }
                    pos += length
                    let bias = (Int64(1) << Int64(7 * length - 1)) - 1
                    size += Int64(raw) - bias
                    guard size >= 0, size <= Int64(end - pos) else { throw .malformed("WebM: bad EBML lace size") }
                    sizes.append(Int(size))
                }
            }
        default:  // fixed
            guard (end - pos) % count == 0 else { throw .malformed("WebM: fixed lacing does not divide the block") }
            sizes = Array(repeating: (end - pos) / count, count: count - 1)
        }
        let used = sizes.reduce(0) { $0 &+ $1 }
        guard sizes.allSatisfy({ $0 >= 0 && $0 <= end - pos }), used <= end - pos else {
            throw .malformed("WebM: lace sizes exceed the block")
        }
        sizes.append(end - pos - used)
        for (i, size) in sizes.enumerated() {
            try track.append(pos..<(pos + size), discard: i == sizes.count - 1 ? discard : 0, in: r.bytes)
            pos += size
        }
    }
}
