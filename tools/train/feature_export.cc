#include "tools/train/feature_export.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <stdexcept>
#include <vector>

#include "jfp_config.h"
#include "model/jobs/outcome.h"
#include "model/scoring/model_bundle.h"
#include "model/util/time_util.h"
#include "tools/train/trainer.h"

namespace jfp {

namespace {

std::string sys_error(const std::string &what, const std::string &path) {
    return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

bool is_export_file(const std::string &name) {
    return name == "manifest.json" || (name.rfind("part-", 0) == 0 && name.size() > 9 &&
                                       name.compare(name.size() - 4, 4, ".csv") == 0);
}

// An empty or new directory, or (with replace) one holding only an earlier export, whose files go.
void prepare_dir(const ExportOptions &out) {
    if (::mkdir(out.dir.c_str(), 0755) == 0) return;
    if (errno != EEXIST) throw std::runtime_error(sys_error("create the export directory", out.dir));
    std::unique_ptr<DIR, int (*)(DIR *)> d(::opendir(out.dir.c_str()), ::closedir);
    if (!d) throw std::runtime_error(sys_error("read the export directory", out.dir));
    std::vector<std::string> ours;
    bool has_manifest = false;
    while (dirent *e = ::readdir(d.get())) {
        std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        if (!is_export_file(name))
            throw std::runtime_error(out.dir + " holds " + name +
                                     ", which no feature export writes; give an empty or new directory");
        has_manifest |= name == "manifest.json";
        ours.push_back(name);
    }
    if (ours.empty()) return;
    if (!out.replace || !has_manifest)
        throw std::runtime_error(out.dir + " already holds " + (has_manifest ? "a feature export" : "part files") +
                                 "; give a new directory" + (has_manifest ? ", or --replace to overwrite it" : ""));
    // The manifest goes first: a half-removed export is never mistaken for a whole one.
    std::string manifest = out.dir + "/manifest.json";
    if (::unlink(manifest.c_str()) != 0) throw std::runtime_error(sys_error("remove", manifest));
    for (const auto &name : ours) {
        std::string p = out.dir + "/" + name;
        if (name != "manifest.json" && ::unlink(p.c_str()) != 0) throw std::runtime_error(sys_error("remove", p));
    }
}

// CSV quoting for the text columns (cluster names and job ids never need it; a hostile one still parses).
void put_text(std::string &line, const std::string &s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        line += s;
        return;
    }
    line += '"';
    for (char c : s) {
        if (c == '"') line += '"';
        line += c;
    }
    line += '"';
}

// Nine significant digits: read back as a double and rounded to float, every value is the float the
// trainer saw (the error of 9 digits is far below half a float ulp). Unknown is an empty field.
void put_float(std::string &line, float v) {
    if (std::isnan(v)) return;
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
    line.append(buf, r.ptr);
}

class PartWriter {
public:
    PartWriter(std::string dir, std::string header, uint64_t rows_per_part)
        : dir_(std::move(dir)), header_(std::move(header)), rows_per_part_(rows_per_part ? rows_per_part : 1) {}
    ~PartWriter() {
        if (f_) std::fclose(f_);
    }
    void write(const std::string &line) {
        if (!f_ || rows_ == rows_per_part_) open_next();
        put(line);
        ++rows_;
    }
    void close() {
        if (f_ && (std::fflush(f_) != 0 || ::fsync(::fileno(f_)) != 0 || std::fclose(f_) != 0)) {
            f_ = nullptr;
            throw std::runtime_error(sys_error("finish", names_.back()));
        }
        f_ = nullptr;
    }
    const std::vector<std::string> &names() const { return names_; }
    uint64_t bytes() const { return bytes_; }

private:
    void open_next() {
        close();
        char name[32];
        std::snprintf(name, sizeof name, "part-%05zu.csv", names_.size());
        names_.push_back(name);
        std::string path = dir_ + "/" + name;
        f_ = std::fopen(path.c_str(), "we");
        if (!f_) throw std::runtime_error(sys_error("write", path));
        rows_ = 0;
        put(header_);
    }
    void put(const std::string &line) {
        if (std::fwrite(line.data(), 1, line.size(), f_) != line.size())
            throw std::runtime_error(sys_error("write", dir_ + "/" + names_.back()));
        bytes_ += line.size();
    }
    std::string dir_, header_;
    uint64_t rows_per_part_;
    FILE *f_ = nullptr;
    uint64_t rows_ = 0, bytes_ = 0;
    std::vector<std::string> names_;
};

std::string time_or_empty(int64_t t) { return t > 0 ? format_sacct_time(t) : ""; }

nlohmann::json default_params(const TrainOptions &opt) {
    return {{"rounds", opt.rounds},
            {"early_stopping_rounds", opt.early_stopping_rounds},
            {"stop_metric", opt.stop_metric},
            {"max_depth", opt.max_depth},
            {"eta", opt.eta},
            {"subsample", opt.subsample},
            {"colsample_bytree", opt.colsample},
            {"min_child_weight", opt.min_child_weight},
            {"scale_pos_weight", opt.scale_pos_weight},
            {"seed", opt.seed},
            {"target_precision", opt.target_precision},
            {"class_rounds", opt.class_rounds},
            {"class_max_depth", opt.class_max_depth},
            {"reference_rows", opt.reference_rows},
            {"monotone_constraints", monotone_constraints()},
            {"tree_method", "hist"},
            {"base_score", 0.5}};
}

}  // namespace

ExportSummary export_features(const HistoryStore &store, const TrainOptions &opt, const ExportOptions &out) {
    ExportSummary s;
    s.window = choose_training_window(store, opt);  // before touching the directory: too little history leaves it
    prepare_dir(out);

    std::string header = "cluster,job,submit,end,split,label,class";
    for (const char *name : feature_names()) (header += ',') += name;
    header += '\n';
    PartWriter parts(out.dir, header, out.rows_per_part);
    int64_t first[2] = {0, 0}, last[2] = {0, 0};
    std::string line;
    s.sources = sweep_training_rows(store, opt, s.window, [&](const JobRecord &j, const FeatureVector &x, Split split) {
        bool fail = is_failure(j.outcome);
        int k = split == Split::Train ? 0 : 1;
        (k ? s.val_rows : s.train_rows) += 1;
        (k ? s.val_failures : s.train_failures) += fail;
        if (first[k] == 0 || j.submit < first[k]) first[k] = j.submit;
        last[k] = std::max(last[k], j.submit);
        line.clear();
        put_text(line, j.cluster);
        line += ',';
        put_text(line, j.job_key);
        ((((line += ',') += std::to_string(j.submit)) += ',') += std::to_string(j.end)) += ',';
        ((line += split_name(split)) += ',') += fail ? '1' : '0';
        (line += ',') += std::to_string(failure_class_index(j.outcome));
        for (float v : x) {
            line += ',';
            put_float(line, v);
        }
        line += '\n';
        parts.write(line);
    });
    parts.close();
    s.parts = parts.names().size();
    s.bytes = parts.bytes();

    nlohmann::json m;
    m["format"] = kFeatureExportFormat;
    m["format_version"] = kFeatureExportFormatVersion;
    {
        time_t now = time(nullptr);
        char created[32];
        std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
        m["created"] = created;
    }
    m["storage"] = "csv";
    m["parts"] = parts.names();
    m["rows_per_part"] = out.rows_per_part;
    m["columns"] = {{"cluster", "text"}, {"job", "JobIDRaw"},
                    {"submit", "seconds, sacct's wall clock read as UTC"}, {"end", "seconds, as submit"},
                    {"split", "train or validation"}, {"label", "1: the job failed, 0: it completed"},
                    {"class", "index into classes of the failure; -1 for a completed job"},
                    {"features", "the feature schema's names, in order; an empty field is unknown (NaN)"}};
    m["feature_schema"] = {{"version", kFeatureSchemaVersion}, {"names", feature_names()}};
    nlohmann::json classes = nlohmann::json::array();
    for (Outcome o : kFailureClassOutcomes) classes.push_back(outcome_name(o));
    m["classes"] = classes;
    m["window"] = {{"cutoff", s.window.cutoff ? format_sacct_time(*s.window.cutoff) : ""},
                   {"validation_start", format_sacct_time(s.window.validation_start)},
                   {"train_window", {time_or_empty(first[0]), time_or_empty(last[0])}},
                   {"validation_window", {time_or_empty(first[1]), time_or_empty(last[1])}}};
    m["rows"] = {{"train", s.train_rows},
                 {"train_failures", s.train_failures},
                 {"validation", s.val_rows},
                 {"validation_failures", s.val_failures}};
    m["sources"] = {{"logged_feature_vectors", s.sources.logged_vectors},
                    {"archived_scripts", s.sources.archived_scripts},
                    {"feature_sweep_seconds", s.sources.seconds}};
    m["params"] = default_params(opt);
    m["bundle"] = {{"format", kBundleFormat}, {"format_version", kBundleFormatVersion}, {"jfp_version", PACKAGE_VERSION}};
    // Last, atomically: a directory with a manifest holds a whole export.
    write_bundle(m, out.dir + "/manifest.json");
    return s;
}

ExportSummary run_export(const std::string &db, const TrainOptions &opt, const ExportOptions &out, bool quiet) {
    HistoryStore store(db, HistoryStore::Access::ReadOnly);
    ExportSummary s = export_features(store, opt, out);
    if (quiet) return s;
    std::printf("jfp export-features: wrote %zu CSV part%s (%.1f MiB) and manifest.json to %s\n", s.parts,
                s.parts == 1 ? "" : "s", static_cast<double>(s.bytes) / 1048576.0, out.dir.c_str());
    std::printf("  training rows   %llu (%llu failed)\n", static_cast<unsigned long long>(s.train_rows),
                static_cast<unsigned long long>(s.train_failures));
    std::printf("  validation rows %llu (%llu failed)\n", static_cast<unsigned long long>(s.val_rows),
                static_cast<unsigned long long>(s.val_failures));
    std::printf("  feature sweep   %.1f s\n", s.sources.seconds);
    std::printf("  train on it with: jfp-train-dask --features %s --out model.json\n", out.dir.c_str());
    return s;
}

}  // namespace jfp
