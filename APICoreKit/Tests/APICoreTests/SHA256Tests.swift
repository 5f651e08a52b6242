@_spi(Tools) import APICore
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("FIPS 180-4 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1_000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ])
    func vectors(input: String, expected: String) {
        #expect(SHA256.hexDigest(input) == expected)
    }

    @Test("lengths around the padding boundary all hash (55, 56, 63, 64, 65 bytes)")
    func boundaries() {
        let digests = [55, 56, 63, 64, 65].map { SHA256.hexDigest(String(repeating: "x", count: $0)) }
        #expect(Set(digests).count == 5)
        #expect(digests.allSatisfy { $0.count == 64 })
    }
}
