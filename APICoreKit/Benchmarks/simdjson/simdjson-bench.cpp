// The reference for `scripts/bench.sh json`: simdjson's DOM parse of each file named, best of the
// rounds asked for, printed as `name MB/s` (MB = 10^6 bytes). Built by the script from Debian's
// libsimdjson-dev; apicore-json-bench runs it on the same files it measures APICore's reader on.
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

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
        for (int round = 0; round < rounds; round++) {
            auto start = std::chrono::steady_clock::now();
            simdjson::dom::element document;
            if (parser.parse(json).get(document)) {
                std::fprintf(stderr, "simdjson-bench: %s is not JSON\n", argv[index]);
                return 1;
            }
            double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (seconds < best) best = seconds;
        }
        std::printf("%s %.1f\n", argv[index], double(json.size()) / best / 1e6);
    }
    return 0;
}
