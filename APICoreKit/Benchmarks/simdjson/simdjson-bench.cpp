// The reference for `scripts/bench.sh json`: simdjson's DOM parse of each file named, and the parse
// followed by a walk that reads every value (each key, string, number and boolean, as an app that
// shows the whole answer touches each field), best of the rounds asked for, printed as
// `name parse-MB/s parse-and-walk-MB/s` (MB = 10^6 bytes). Built by the script from Debian's
// libsimdjson-dev; apicore-json-bench runs it on the same files it measures APICore's reader on.
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

// Reads every value under `element`; what it adds up keeps the reads from being optimised away.
static size_t walk(simdjson::dom::element element) {
    switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
        size_t sum = 0;
        for (auto field : simdjson::dom::object(element)) sum += field.key.size() + walk(field.value);
        return sum;
    }
    case simdjson::dom::element_type::ARRAY: {
        size_t sum = 0;
        for (auto child : simdjson::dom::array(element)) sum += walk(child);
        return sum;
    }
    case simdjson::dom::element_type::STRING: return std::string_view(element).size();
    case simdjson::dom::element_type::INT64: return size_t(int64_t(element));
    case simdjson::dom::element_type::UINT64: return size_t(uint64_t(element));
    case simdjson::dom::element_type::DOUBLE: return size_t(double(element));
    case simdjson::dom::element_type::BOOL: return bool(element) ? 1 : 0;
    case simdjson::dom::element_type::NULL_VALUE: return 0;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: simdjson-bench <rounds> <file.json>...\n");
        return 2;
    }
    const int rounds = std::atoi(argv[1]);
    simdjson::dom::parser parser;
    for (int index = 2; index < argc; index++) {
        simdjson::padded_string json;
        if (simdjson::padded_string::load(argv[index]).get(json)) {
            std::fprintf(stderr, "simdjson-bench: cannot read %s\n", argv[index]);
            return 1;
        }
        double best = 1e30;
        double bestWalked = 1e30;
        size_t sink = 0;
        for (int round = 0; round < rounds; round++) {
            for (int walking = 0; walking < 2; walking++) {
                auto start = std::chrono::steady_clock::now();
                simdjson::dom::element document;
                if (parser.parse(json).get(document)) {
                    std::fprintf(stderr, "simdjson-bench: %s is not JSON\n", argv[index]);
                    return 1;
                }
                if (walking) sink += walk(document);
                double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                double &slot = walking ? bestWalked : best;
                if (seconds < slot) slot = seconds;
            }
        }
        std::printf("%s %.1f %.1f\n", argv[index], double(json.size()) / best / 1e6, double(json.size()) / bestWalked / 1e6);
        if (sink == 1) std::fprintf(stderr, " ");
    }
    return 0;
}
