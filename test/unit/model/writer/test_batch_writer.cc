// The background writer the feature log and the script archive share, against a sink that keeps its rows
// in memory and fails when told: when it wakes, what a failing file costs, and that every entry is
// finished exactly once.
#include "catch.h"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "model/util/bounded_queue.h"
#include "model/writer/batch_writer.h"
#include "test_support.h"

namespace test_batch_writer {

using namespace jfp;

namespace {

// Batches of up to 4. open() creates the file at path, so that the writer's rotation watch has one to watch.
class MemorySink : public BatchSink {
public:
    MemorySink(std::string path, size_t capacity) : queue(capacity), path_(std::move(path)) {}

    BoundedQueue<int> queue;
    std::atomic<int> fail_opens{0};   // the next this many opens throw
    std::atomic<int> fail_batch{0};   // the batch with this number (1-based) throws; 0: none
    std::atomic<bool> throw_odd{false};  // the failing batch throws an int, not a std::exception
    std::atomic<int> opens{0}, closes{0}, rotated_closes{0}, quiets{0}, empty_looks{0};
    std::atomic<uint64_t> written{0}, failed{0};
    std::vector<int> rows() {
        std::lock_guard<std::mutex> lk(mu_);
        return rows_;
    }

    bool take() override {
        if (queue.try_pop(held_)) return true;
        ++empty_looks;  // the writer found nothing and goes to wait
        return false;
    }
    void open() override {
        if (fail_opens > 0) {
            --fail_opens;
            throw std::runtime_error("cannot open " + path_);
        }
        if (FILE *f = std::fopen(path_.c_str(), "a")) std::fclose(f);
        ++opens;
    }
    void write(Batch &b) override {
        std::vector<int> batch{held_};
        b.taken = 1;
        while (batch.size() < 4 && queue.try_pop(held_)) {
            batch.push_back(held_);
            ++b.taken;
        }
        if (++batches_ == fail_batch) {
            failed += b.taken;
            if (throw_odd) throw 42;
            throw std::runtime_error("disk full");
        }
        {
            std::lock_guard<std::mutex> lk(mu_);
            rows_.insert(rows_.end(), batch.begin(), batch.end());
        }
        b.written = b.taken;
        written += b.taken;
    }
    uint64_t fail_all() noexcept override {
        uint64_t n = 1;
        while (queue.try_pop(held_)) ++n;
        failed += n;
        return n;
    }
    void close(bool rotated) noexcept override {
        ++closes;
        if (rotated) ++rotated_closes;
    }
    std::string open_failed(const std::string &what) const override { return "test sink: " + what; }
    std::string write_failed(const std::string &what) const override { return "test sink: " + what; }
    std::string rotated(const std::string &what) const override { return "test sink " + what; }
    void quiet() override { ++quiets; }

private:
    std::string path_;
    int held_ = 0;
    int batches_ = 0;
    std::mutex mu_;
    std::vector<int> rows_;
};

// The sink before the writer: the writer's thread stops before the sink goes.
struct Rig {
    test::TempDir dir;
    MemorySink sink;
    BatchWriter writer;
    explicit Rig(size_t capacity = 4096, std::chrono::milliseconds idle_wait = BatchWriter::kIdleWait, bool start = true)
        : sink(dir.file("w.db"), capacity),
          writer(dir.file("w.db"), sink, BatchWriter::Options{"jfp-test", sink.queue.capacity(), idle_wait, 300}) {
        if (start) writer.start();
    }
    ~Rig() { writer.stop(); }
    bool push(int i) {
        if (!sink.queue.try_push(std::move(i))) return false;
        writer.pushed();
        return true;
    }
};

// Waits (at most a minute: a condition that must come, not a timing) until n are written.
bool written_within(const MemorySink &s, uint64_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (s.written < n) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace

TEST_CASE("batch writer: at exit its thread writes what is queued and ends within the limit") {
    Rig rig(4096, std::chrono::hours(1));
    for (int i = 0; i < 30; ++i) REQUIRE(rig.push(i));  // fewer than the wake depth, and an hour's timer
    auto t0 = std::chrono::steady_clock::now();
    CHECK(rig.writer.stop_within(std::chrono::seconds(30)));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
    CHECK(rig.sink.written == 30);
    CHECK(rig.sink.closes == 1);
}

TEST_CASE("batch writer: a push wakes it only once the wake depth waits; the timer drains the rest") {
    Rig rig(4096, std::chrono::hours(1));  // an hour's timer: only a wake drains a burst
    REQUIRE(rig.push(0));
    REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const int depth = static_cast<int>(BatchWriter::kWakeDepth);
    int pushed = 1;
    for (; pushed < depth; ++pushed) REQUIRE(rig.push(pushed));
    CHECK(rig.writer.wakes() == 0);
    REQUIRE(rig.push(pushed++));
    CHECK((rig.writer.wakes() == 1 || rig.sink.written > 1));
    REQUIRE(written_within(rig.sink, static_cast<uint64_t>(pushed)));
    CHECK(rig.writer.finished() == static_cast<uint64_t>(pushed));
}

TEST_CASE("batch writer: a queue smaller than twice the wake depth wakes it at half its capacity") {
    Rig rig(8, std::chrono::hours(1));
    REQUIRE(rig.push(0));
    REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int i = 1; i < 4; ++i) REQUIRE(rig.push(i));
    CHECK(rig.writer.wakes() == 0);
    REQUIRE(rig.push(4));
    REQUIRE(written_within(rig.sink, 5));
}

TEST_CASE("batch writer: a file that cannot be opened fails what is queued, each once, and is tried again after the back-off") {
    Rig rig(64, BatchWriter::kIdleWait, false);
    rig.sink.fail_opens = 1;
    for (int i = 0; i < 5; ++i) REQUIRE(rig.push(i));
    rig.writer.start();
    REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
    CHECK(rig.sink.failed == 5);  // drained: the queue does not fill behind a broken file
    CHECK(rig.sink.written == 0);
    CHECK(rig.sink.opens == 0);
    // The next entry waits for the back-off: the file is not tried at every entry.
    REQUIRE(rig.push(5));
    auto t0 = std::chrono::steady_clock::now();
    CHECK_FALSE(rig.writer.flush_for(std::chrono::milliseconds(500)));
    REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
    CHECK(std::chrono::steady_clock::now() - t0 > BatchWriter::kBackOff - std::chrono::seconds(1));
    CHECK(rig.sink.written == 1);
    CHECK(rig.sink.opens == 1);
    CHECK(rig.writer.finished() == 6);
}

TEST_CASE("batch writer: the Nth batch failing loses that batch only, counted once, and the file is reopened") {
    for (bool odd : {false, true}) {
        INFO((odd ? "a non-std exception" : "a std::exception"));
        Rig rig(64, BatchWriter::kIdleWait, false);
        rig.sink.fail_batch = 3;
        rig.sink.throw_odd = odd;
        // All queued before the thread starts: batches of 4, the third (8..11) fails.
        for (int i = 0; i < 40; ++i) REQUIRE(rig.push(i));
        rig.writer.start();
        REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
        CHECK(rig.sink.written == 36);
        CHECK(rig.sink.failed == 4);
        CHECK(rig.writer.finished() == 40);
        std::vector<int> rows = rig.sink.rows();
        REQUIRE(rows.size() == 36);
        for (int r : rows) CHECK((r < 8 || r > 11));
        CHECK(rig.sink.opens == 2);  // closed after the failure, opened again for the next batch
        CHECK(rig.sink.closes >= 1);
    }
}

TEST_CASE("batch writer: a file renamed under it is closed as rotated and the next entry opens a new one") {
    Rig rig;
    const std::string path = rig.dir.file("w.db");
    REQUIRE(rig.push(0));
    REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
    REQUIRE(rig.sink.opens == 1);
    REQUIRE(::rename(path.c_str(), (path + ".1").c_str()) == 0);
    // The watch looks every 2 s; each entry pushed meanwhile is written to the open (renamed) file.
    int i = 1;
    for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(15);
         rig.sink.opens < 2 && std::chrono::steady_clock::now() < end; ++i) {
        REQUIRE(rig.push(i));
        REQUIRE(rig.writer.flush_for(std::chrono::minutes(1)));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK(rig.sink.rotated_closes == 1);
    CHECK(rig.sink.opens == 2);
    struct stat st {};
    CHECK(::stat(path.c_str(), &st) == 0);
    CHECK(rig.sink.failed == 0);
    CHECK(rig.sink.written == static_cast<uint64_t>(i));
}

TEST_CASE("batch writer: stopping writes what is queued first; a burst ends in its idle timer") {
    Rig rig(4096, std::chrono::hours(1));
    for (int i = 0; i < 100; ++i) REQUIRE(rig.push(i));
    // After the burst, within a hold, the writer is back on its timer and tells the sink it is quiet.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while ((rig.sink.written < 100 || rig.sink.quiets == 0) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CHECK(rig.sink.quiets > 0);
    for (int i = 100; i < 150; ++i) REQUIRE(rig.push(i));  // fewer than the wake depth, and an hour's timer
    rig.writer.stop();
    CHECK(rig.sink.written == 150);
    CHECK(rig.sink.closes == 1);
}

TEST_CASE("batch writer: a steady stream is written in batches: its busy look slows until each finds several") {
    // 1,000 entries a second, more than the busy cadence's threshold: with a 2 ms look the writer found about
    // one entry at each, a transaction each; the look now doubles while it finds fewer than the wake depth / 4.
    Rig rig;
    const auto t0 = std::chrono::steady_clock::now();
    int i = 0;
    for (; std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1); ++i) {
        REQUIRE(rig.push(i));
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    REQUIRE(written_within(rig.sink, static_cast<uint64_t>(i)));
    INFO(i << " entries pushed in 1 s, " << rig.sink.empty_looks.load() << " empty looks");
    REQUIRE(i > 300);  // the stream reached the busy cadence (16 in 50 ms)
    // 2 ms looks: several hundred; at most a hold's look (50 ms) apart, some 20 to 60 in the second.
    CHECK(rig.sink.empty_looks < 150);
}

}  // namespace test_batch_writer
