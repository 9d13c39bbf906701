import ArgumentParser
import Foundation
import JWTKit

/// `objdb-sync token`: prints a signed HS256 JWT for a user.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print an HS256 JWT for a user (sub), signed with the secret file.")

    @Option(help: "A file holding the HS256 secret.")
    var jwtSecretFile: String

    @Option(help: "The user (the token's sub claim).")
    var user: String

    @Option(help: "Seconds until the token expires.")
    var expires: Int = 3600

    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim

        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    func run() async throws {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: try readSecret(jwtSecretFile)), digestAlgorithm: .sha256)
        let now = Date()
        let token = try await keys.sign(
            Claims(sub: .init(value: user), exp: .init(value: now.addingTimeInterval(TimeInterval(expires))), iat: .init(value: now)))
        print(token)
    }
}
