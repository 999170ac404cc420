// RAII over XGBoost's C API, for training in the CLI. Every failing call throws with XGBoost's message.
#pragma once

#include <xgboost/c_api.h>

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

namespace jfp {
class Progress;
}

namespace jfp::xgb {

void check(int rc, const char *what);

class DMatrix {
public:
    // Row-major rows x cols, NaN = missing.
    DMatrix(const float *data, size_t rows, size_t cols);
    ~DMatrix();
    DMatrix(const DMatrix &) = delete;
    DMatrix &operator=(const DMatrix &) = delete;
    void set_labels(const std::vector<float> &labels);
    void set_weights(const std::vector<float> &weights);
    DMatrixHandle get() const { return h_; }
    size_t rows() const { return rows_; }

private:
    DMatrixHandle h_ = nullptr;
    size_t rows_ = 0;
};

class Booster {
public:
    explicit Booster(const std::vector<const DMatrix *> &cache);
    ~Booster();
    Booster(Booster &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Booster(const Booster &) = delete;
    Booster &operator=(const Booster &) = delete;

    void set(const std::string &key, const std::string &value);
    void update(int iteration, const DMatrix &train);
    // One evaluation line for the given sets, e.g. "[3]\tval-aucpr:0.61".
    std::string eval(int iteration, const DMatrix &m, const char *name);
    // Trees [0, rounds) as a new booster.
    Booster slice(int rounds) const;
    std::string save_json() const;
    // Probabilities (binary) or rows x classes (softprob).
    std::vector<float> predict(const DMatrix &m) const;
    BoosterHandle get() const { return h_; }

private:
    struct Adopt {};
    Booster(Adopt, BoosterHandle h) : h_(h) {}
    BoosterHandle h_ = nullptr;
};

// Boosts up to `rounds`, evaluating `metric` on val each round (maximize: higher is better); stops after
// `patience` rounds without improvement. Without val, boosts every round. Returns the number of rounds to keep.
int boost_with_early_stopping(Booster &b, const DMatrix &train, const DMatrix *val, const std::string &metric,
                              bool maximize, int rounds, int patience, Progress *progress, const char *label);

std::string version();

// XGBoost's JSON model, parsed. XGBoost 3.x writes a split that only separates missing from present
// values with the bare token -Infinity, which JSON lacks; such tokens (-Infinity, Infinity, NaN) outside
// strings become the strings "-Infinity", "Infinity", "NaN", which the bundle loader reads as numbers.
nlohmann::json parse_model_json(const std::string &text);

}  // namespace jfp::xgb
