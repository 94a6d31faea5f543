//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Fuzzes the byte scans that stand in for a JSON parse on the client side (issue 17): the client library's
// `TopLevelScan.eventName` (a raw event's `ev`, found without parsing the frame) and the load tester's
// `RunMarker.find` (the run's `"lt.<sent>.<k>"` mark in a frame). Any bytes: neither may trap or read out of bounds
// (ASan). Differential against `JSONSerialization` where the input is a JSON object for it: a name the scan finds is
// the object's `ev`; and written back as strict JSON without escapes, the object's string `ev` is what the scan
// finds. On other valid UTF-8, a name the scan finds is in the bytes as a quoted string. A mark
// `RunMarker.find` reports is in the bytes as `"lt.<sent>.<k>"` (leading zeros allowed).

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClientScan(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let name = TopLevelScan.eventName(bytes)
    if let object = (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
        as? [String: Any]
    {
        if let name {
            precondition(
                object["ev"] as? String == name, "scan found \(name), JSON has \(String(describing: object["ev"]))")
        }
        // The same object as strict JSON (Foundation's own writing, one `ev`): without escapes the scan must find it.
        // (On the input itself it may give up where Foundation is lenient, e.g. a trailing comma: the client then
        // parses.)
        if let ev = object["ev"] as? String, let strict = try? JSONSerialization.data(withJSONObject: object),
            !strict.contains(0x5C)
        {
            precondition(
                TopLevelScan.eventName(Array(strict)) == ev,
                "scan missed ev \(ev) in \(String(decoding: strict, as: UTF8.self))")
        }
    } else if let name, String(validating: bytes, as: UTF8.self) != nil {
        // Not valid JSON for Foundation: the scan may still find a name (it does not validate nested values). Text
        // frames reach the client as valid UTF-8 (the WebSocket layer checks it), so only such input is compared.
        precondition(occurrences(bytes, Array("\"\(name)\"".utf8)) > 0, "name \(name) not in the bytes")
    }
    if let mark = RunMarker.find(in: bytes) {
        let text = String(bytes.map { Character(Unicode.Scalar($0)) })
        let pattern = "\"lt\\.0*\(mark.sent == 0 ? "" : String(mark.sent))\\.0*\(mark.k == 0 ? "" : String(mark.k))\""
        precondition(text.range(of: pattern, options: .regularExpression) != nil, "mark \(mark) not in the bytes")
    }
    return 0
}

private func occurrences(_ hay: [UInt8], _ needle: [UInt8]) -> Int {
    guard !needle.isEmpty, hay.count >= needle.count else { return 0 }
    var count = 0
    for start in 0...(hay.count - needle.count) where hay[start..<(start + needle.count)].elementsEqual(needle) {
        count += 1
    }
    return count
}
