//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardTransport
import Testing

// Named so that scripts/test.sh's `--filter ClientLibraryTests` runs it with the client library's suite, away
// from the blocking socket tests that can occupy the cooperative pool it awaits on.
@Suite("Client library: voice over HTTP", .serialized)
struct VoiceClientLibraryTests {
    @Test func uploadSendDownloadRangesAndTypedErrors() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        defer {
            Task {
                await ann.close(); await bob.close()
            }
        }
        let bobEvents = EventLog(bob)

        // Without a session: a clear typed error, and nothing goes to the server.
        do {
            _ = try await ann.uploadVoice(toneWAV(seconds: 1))
            Issue.record("an upload without a session succeeded")
        } catch {
            #expect(error.serverCode == .notAuthenticated)
        }

        _ = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)

        // A real WAV: transcoded, measured, drawn.
        let wav = toneWAV(seconds: 2)
        let clip = try await ann.uploadVoice(wav, contentType: "audio/wav")
        #expect(clip.voiceId > 0)
        #expect((1900...2100).contains(clip.durationMs))
        #expect(clip.waveform.count == 100)
        #expect(clip.mimeType == "audio/ogg")
        #expect(clip.sha256.count == 64)
        #expect(clip.size > 0)

        // Sent as a voice message: Bob gets it with the clip inline.
        let ack = try await ann.sendVoice(voiceId: clip.voiceId, to: .user(bobUser.id))
        #expect(
            await bobEvents.wait {
                $0.contains {
                    if case .message(let m) = $0 {
                        return m.seq == ack.seq && m.voice?.voiceId == clip.voiceId
                    } else {
                        return false
                    }
                }
            })

        // Bob may download it (he sees the message), whole and a range; the ETag gives 304.
        let whole = try await bob.downloadVoice(clip.voiceId)
        #expect(whole.status == 200)
        #expect(Int64(whole.bytes.count) == clip.size)
        #expect(Array(whole.bytes.prefix(4)) == Array("OggS".utf8))
        #expect(whole.contentType == "audio/ogg")
        let part = try await bob.downloadVoice(clip.voiceId, range: 10...109)
        #expect(part.status == 206)
        #expect(part.bytes == Array(whole.bytes[10...109]))
        #expect(part.contentRange == "bytes 10-109/\(clip.size)")
        let etag = try #require(whole.etag)
        let cached = try await bob.downloadVoice(clip.voiceId, ifNoneMatch: etag)
        #expect(cached.status == 304)
        #expect(cached.bytes.isEmpty)

        // Typed errors with the server's codes.
        do {
            _ = try await bob.downloadVoice(clip.voiceId + 1_000_000)
            Issue.record("a missing clip downloaded")
        } catch {
            #expect(error.serverCode == .notFound)
        }
        var truncated = Array(wav.prefix(100))
        truncated[40] = 0xFF  // a data chunk longer than the file
        do {
            _ = try await ann.uploadVoice(truncated, contentType: "audio/wav")
            Issue.record("a malformed upload was accepted")
        } catch {
            guard case .server(let e) = error else {
                Issue.record("expected a server error, got \(error)")
                return
            }
            #expect(e.code == "malformed_audio")
        }
        do {
            _ = try await ann.uploadVoice(Array("this is not audio at all, just text".utf8))
            Issue.record("text was accepted as audio")
        } catch {
            guard case .server(let e) = error else {
                Issue.record("expected a server error, got \(error)")
                return
            }
            #expect(e.code == "unsupported_media_type")
        }
        // A token the server does not know: 401 as invalid_token.
        do {
            _ = try await SwitchboardClient.uploadVoice(
                wav, endpoint: ServerEndpoint(host: "127.0.0.1", port: port), token: "not-a-token", loop: ann.loop)
            Issue.record("an unknown token was accepted")
        } catch {
            #expect(error.serverCode == .invalidToken)
        }
        // Nobody listening: a connect failure, not a hang.
        do {
            _ = try await SwitchboardClient.downloadVoice(
                clip.voiceId, endpoint: ServerEndpoint(host: "127.0.0.1", port: 1), token: "x", loop: ann.loop,
                timeout: 5)
            Issue.record("a download from a closed port succeeded")
        } catch {
            if case .connectFailed = error {} else { Issue.record("expected connectFailed, got \(error)") }
        }
    }

    @Test func voiceOverTLSUsesTheClientsTLSContext() async throws {
        let (dir, cert, key) = try selfSignedCertificate(prefix: "sb-voice-tls")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, port, database) = try startProtocolServer {
            $0.tlsCertificatePath = cert
            $0.tlsPrivateKeyPath = key
        }
        defer { stop(server); database.close() }
        let client = try makeClient(port: port, secure: true) {
            $0.tls = try? TLSContext(clientWithCAFile: cert, verify: true)
        }
        _ = try await registerUser(client, "Tess")
        let clip = try await client.uploadVoice(toneWAV(seconds: 1), contentType: "audio/wav")
        let file = try await client.downloadVoice(clip.voiceId)
        #expect(file.status == 200 && Int64(file.bytes.count) == clip.size)
        // A TLS context that does not trust the certificate: the exchange fails to connect, typed.
        let token = try #require(await client.sessionToken)
        let untrusting = try TLSContext(clientWithCAFile: nil, verify: true)
        do {
            _ = try await SwitchboardClient.downloadVoice(
                clip.voiceId, endpoint: ServerEndpoint(host: "127.0.0.1", port: port, secure: true), token: token,
                tls: untrusting, loop: client.loop, timeout: 5)
            Issue.record("an untrusted certificate was accepted")
        } catch {
            if case .connectFailed = error {
            } else if case .connectionLost = error {
            } else {
                Issue.record("expected a connection failure, got \(error)")
            }
        }
        await client.close()
    }
}
