import ArgumentParser
import Foundation
import JWTKit

/// `objdb-sync token`: prints a signed JWT for a user: HS256 with a secret file, RS256 or ES256
/// with a private key.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a JWT for a user (sub), signed with an HS256 secret file or an RS256 or ES256 private key.")

    @Option(help: "A file holding the HS256 secret.")
    var jwtSecretFile: String?

    @Option(help: "A PEM file holding an RSA private key: the token is RS256.")
    var jwtRs256PrivateKeyFile: String?

    @Option(help: "A PEM file holding a P-256 private key: the token is ES256.")
    var jwtEs256PrivateKeyFile: String?

    @Option(help: "The user (the token's sub claim).")
    var user: String

    @Option(help: "Seconds until the token expires.")
    var expires: Int = 3600

    @Option(help: "The audience (the token's aud claim), if the service requires one.")
    var audience: String?

    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var aud: AudienceClaim?

        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    func validate() throws {
        guard [jwtSecretFile, jwtRs256PrivateKeyFile, jwtEs256PrivateKeyFile].compactMap({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --jwt-secret-file, --jwt-rs256-private-key-file and --jwt-es256-private-key-file")
        }
    }

    func run() async throws {
        let keys = JWTKeyCollection()
        if let jwtSecretFile {
            await keys.add(hmac: HMACKey(from: try readSecret(jwtSecretFile)), digestAlgorithm: .sha256)
        } else if let jwtRs256PrivateKeyFile {
            let pem = try String(contentsOfFile: jwtRs256PrivateKeyFile, encoding: .utf8)
            do { await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256) } catch {
                throw ValidationError("\(jwtRs256PrivateKeyFile) holds no RSA private key in PEM of at least 2048 bits: \(error)")
            }
        } else if let jwtEs256PrivateKeyFile {
            let pem = try String(contentsOfFile: jwtEs256PrivateKeyFile, encoding: .utf8)
            do { await keys.add(ecdsa: try ES256PrivateKey(pem: pem)) } catch {
                throw ValidationError("\(jwtEs256PrivateKeyFile) holds no P-256 private key in PEM: \(error)")
            }
        }
        let now = Date()
        let token = try await keys.sign(
            Claims(
                sub: .init(value: user), exp: .init(value: now.addingTimeInterval(TimeInterval(expires))), iat: .init(value: now),
                aud: audience.map { AudienceClaim(value: [$0]) }))
        print(token)
    }
}
