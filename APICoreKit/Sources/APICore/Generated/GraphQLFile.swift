import Foundation

/// A file sent as a GraphQL `Upload` variable, following the GraphQL multipart request spec: the
/// variable is `null` in the JSON, and the file travels as its own part of the request. Files may
/// sit at any depth: in a list, in an input object, in a list of input objects.
public struct GraphQLFile: GraphQLInputValue, Hashable {
    /// Where the bytes come from.
    public enum Source: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// A file on disk, read when the request is sent.
        case fileURL(URL)
    }

    /// The bytes.
    public var source: Source
    /// The file name the server sees.
    public var filename: String
    /// The media type, such as `image/png`.
    public var mimeType: String

    /// A file from bytes in memory.
    public init(data: Data, filename: String, mimeType: String = "application/octet-stream") {
        self.source = .data(data)
        self.filename = filename
        self.mimeType = mimeType
    }

    /// A file from disk; its name is the file's unless given.
    public init(fileURL: URL, filename: String? = nil, mimeType: String = "application/octet-stream") {
        self.source = .fileURL(fileURL)
        self.filename = filename ?? fileURL.lastPathComponent
        self.mimeType = mimeType
    }

    /// `null`: the file itself travels in its own part.
    public var _inputJSON: JSONValue? { .null }

    /// The file, at `path`.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {
        files.append((path, self))
    }

    /// The bytes, read now for a file on disk.
    @_spi(Engine) public func contents() throws -> Data {
        switch source {
        case .data(let data): return data
        case .fileURL(let url): return try Data(contentsOf: url)
        }
    }
}

extension GraphQLInputValue {
    /// Most values hold no file.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {}

    /// Its JSON, and its files.
    public func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue? {
        _collectFiles(at: path, into: &files)
        return _inputJSON
    }
}

extension Array where Element: GraphQLInputValue {
    /// The files of each element, at its index.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {
        for (index, element) in enumerated() { element._collectFiles(at: path + [String(index)], into: &files) }
    }

    /// Each element's JSON and files, in one walk (an element that would be left out is `null`).
    public func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue? {
        .array(enumerated().map { $0.element._inputJSON(collectingFilesAt: path + [String($0.offset)], into: &files) ?? .null })
    }
}

extension Optional where Wrapped: GraphQLInputValue {
    /// The wrapped value's files.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {
        self?._collectFiles(at: path, into: &files)
    }

    /// The wrapped value's JSON and files; nothing for `nil`.
    public func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue? {
        self?._inputJSON(collectingFilesAt: path, into: &files)
    }
}

extension GraphQLNullable where Wrapped: GraphQLInputValue {
    /// The value's files, when there is a value.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {
        if case .some(let value) = self { value._collectFiles(at: path, into: &files) }
    }

    /// Left out, `null`, or the value's JSON and files.
    public func _inputJSON(collectingFilesAt path: [String], into files: inout [(path: [String], file: GraphQLFile)]) -> JSONValue? {
        switch self {
        case .none: return nil
        case .null: return .null
        case .some(let value): return value._inputJSON(collectingFilesAt: path, into: &files) ?? .null
        }
    }
}

extension InputObject {
    /// The files of its fields.
    public func _collectFiles(at path: [String], into files: inout [(path: [String], file: GraphQLFile)]) {
        for (fieldPath, file) in __data.files { files.append((path + fieldPath, file)) }
    }
}
