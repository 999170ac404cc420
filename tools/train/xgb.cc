#include "tools/train/xgb.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "tools/terminal/progress.h"

namespace jfp::xgb {

namespace {

double metric_from_eval(const std::string &line, const std::string &name) {
    auto pos = line.find(name + ":");
    if (pos == std::string::npos) return std::nan("");
    return std::strtod(line.c_str() + pos + name.size() + 1, nullptr);
}

}  // namespace

void check(int rc, const char *what) {
    if (rc != 0) throw std::runtime_error(std::string("XGBoost ") + what + " failed: " + XGBGetLastError());
}

DMatrix::DMatrix(const float *data, size_t rows, size_t cols) : rows_(rows) {
    // The OpenMP variant: converting 1M+ dense rows is otherwise one thread's work (bench/pipeline.py).
    check(XGDMatrixCreateFromMat_omp(data, static_cast<bst_ulong>(rows), static_cast<bst_ulong>(cols), std::nanf(""), &h_, 0),
          "XGDMatrixCreateFromMat_omp");
}

DMatrix::~DMatrix() {
    if (h_) XGDMatrixFree(h_);
}

void DMatrix::set_labels(const std::vector<float> &labels) {
    check(XGDMatrixSetFloatInfo(h_, "label", labels.data(), labels.size()), "setting labels");
}

void DMatrix::set_weights(const std::vector<float> &w) {
    check(XGDMatrixSetFloatInfo(h_, "weight", w.data(), w.size()), "setting weights");
}

Booster::Booster(const std::vector<const DMatrix *> &cache) {
    std::vector<DMatrixHandle> hs;
    for (auto *d : cache) hs.push_back(d->get());
    check(XGBoosterCreate(hs.data(), hs.size(), &h_), "XGBoosterCreate");
}

Booster::~Booster() {
    if (h_) XGBoosterFree(h_);
}

void Booster::set(const std::string &key, const std::string &value) {
    check(XGBoosterSetParam(h_, key.c_str(), value.c_str()), ("setting " + key).c_str());
}

void Booster::update(int iteration, const DMatrix &train) {
    check(XGBoosterUpdateOneIter(h_, iteration, train.get()), "training round");
}

std::string Booster::eval(int iteration, const DMatrix &m, const char *name) {
    DMatrixHandle hs[1] = {m.get()};
    const char *names[1] = {name};
    const char *out = nullptr;
    check(XGBoosterEvalOneIter(h_, iteration, hs, names, 1, &out), "evaluation");
    return out;
}

Booster Booster::slice(int rounds) const {
    BoosterHandle out = nullptr;
    check(XGBoosterSlice(h_, 0, rounds, 1, &out), "XGBoosterSlice");
    return Booster(Adopt{}, out);
}

std::string Booster::save_json() const {
    bst_ulong len = 0;
    const char *buf = nullptr;
    check(XGBoosterSaveModelToBuffer(h_, "{\"format\": \"json\"}", &len, &buf), "saving the model");
    return std::string(buf, len);
}

std::vector<float> Booster::predict(const DMatrix &m) const {
    const char *config = R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, "strict_shape": false})";
    const bst_ulong *shape = nullptr;
    bst_ulong dim = 0;
    const float *result = nullptr;
    check(XGBoosterPredictFromDMatrix(h_, m.get(), config, &shape, &dim, &result), "prediction");
    size_t n = 1;
    for (bst_ulong i = 0; i < dim; ++i) n *= shape[i];
    return std::vector<float>(result, result + n);
}

nlohmann::json parse_model_json(const std::string &text) {
    static const char *const kTokens[] = {"-Infinity", "Infinity", "NaN"};
    std::string out;
    out.reserve(text.size() + 64);
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < text.size()) out += text[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        bool replaced = false;
        for (const char *tok : kTokens) {
            size_t n = std::char_traits<char>::length(tok);
            if (text.compare(i, n, tok) == 0) {
                out += '"';
                out.append(tok, n);
                out += '"';
                i += n - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced) out += c;
    }
    return nlohmann::json::parse(out);
}

std::string version() {
    int a = 0, b = 0, c = 0;
    XGBoostVersion(&a, &b, &c);
    return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

int boost_with_early_stopping(Booster &b, const DMatrix &train, const DMatrix *val, const std::string &metric,
                              bool maximize, int rounds, int patience, Progress *progress, const char *label) {
    double best = maximize ? -INFINITY : INFINITY;
    int best_round = rounds;
    for (int i = 0; i < rounds; ++i) {
        b.update(i, train);
        if (!val) {
            if (progress) progress->update(i + 1, rounds, std::string(label));
            continue;
        }
        double v = metric_from_eval(b.eval(i, *val, "val"), "val-" + metric);
        if (!std::isnan(v) && (maximize ? v > best : v < best)) {
            best = v;
            best_round = i + 1;
        }
        if (progress) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%s val-%s %.4f (best %.4f at %d)", label, metric.c_str(), v, best, best_round);
            progress->update(i + 1, rounds, buf);
        }
        if (i + 1 - best_round >= patience) break;
    }
    if (progress) progress->finish();
    return best_round;
}

}  // namespace jfp::xgb
