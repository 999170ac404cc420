// jfp publish: installs a model bundle where jfp.conf's `model` points, atomically, keeping the one it
// replaces, after checking that it ranks failures at least as well as the history rules on the site's
// recent jobs and as the model installed on the jobs neither trained on (tools/evaluate/verdict.h);
// --rollback puts the previous one back.
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "model/scoring/model_bundle.h"
#include "model/files/atomic_file.h"
#include "model/util/time_util.h"
#include "tools/operations/operations.h"
#include "tools/options/site_conf.h"
#include "tools/evaluate/verdict.h"

namespace jfp {

namespace {

struct PublishArgs {
    std::string bundle, conf, target, db;
    bool force = false, rollback = false;
    size_t min_failures = 20;
};

std::string read_all(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string target_path(const PublishArgs &a) {
    if (!a.target.empty()) return a.target;
    std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
    auto cfg = load_site_conf(conf, !a.conf.empty());
    if (!cfg)
        throw std::runtime_error("no " + conf + ": say where the plugin reads its model with --target PATH, or name the jfp.conf with --conf");
    return cfg->model_path;
}

std::string store_path(const PublishArgs &a) {
    if (!a.db.empty()) return a.db;
    std::string conf = a.conf.empty() ? default_conf_path() : a.conf;
    auto cfg = load_site_conf(conf, !a.conf.empty());
    if (!cfg) return "";
    struct stat st {};
    return ::stat(cfg->store_path.c_str(), &st) == 0 ? cfg->store_path : "";
}

// Two publishes at once (the retrain timer and an admin) would each keep the other's model as the previous
// one and lose one: one at a time, by a lock file beside the model.
class PublishLock {
public:
    explicit PublishLock(const std::string &target) {
        std::string path = target + ".lock";
        // Read-only: flock needs no write access, so a lock file root left (0644) still serves SlurmUser.
        fd_ = ::open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
        if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
        if (errno == EWOULDBLOCK) {
            std::fprintf(stderr, "jfp publish: waiting for another jfp publish on %s\n", target.c_str());
            int rc;
            while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
            }
            if (rc == 0) return;
        }
        const std::string why = std::strerror(errno);
        ::close(fd_);
        throw std::runtime_error("cannot lock " + path + " (" + why + "): nothing was installed; run jfp publish again");
    }
    ~PublishLock() { ::close(fd_); }
    PublishLock(const PublishLock &) = delete;
    PublishLock &operator=(const PublishLock &) = delete;

private:
    int fd_ = -1;
};

// Temporary copies not renamed into place are removed when publishing stops early.
struct TempFiles {
    std::vector<std::string> paths;
    ~TempFiles() {
        for (const auto &p : paths) ::unlink(p.c_str());
    }
    const std::string &add(std::string p) { return paths.emplace_back(std::move(p)); }
    void done(const std::string &p) { paths.erase(std::remove(paths.begin(), paths.end(), p), paths.end()); }
};

std::string id_of(const std::string &path) {
    try {
        return ModelBundle::load_file(path).model_id();
    } catch (const std::exception &) {
        return "(unreadable)";
    }
}

void run_rollback(const PublishArgs &a) {
    const std::string target = target_path(a);
    const std::string previous = target + ".previous";
    struct stat st {};
    if (::lstat(previous.c_str(), &st) != 0)
        throw std::runtime_error("nothing to roll back to: " + previous + " does not exist (jfp publish keeps it when it replaces a model)");
    PublishLock lock(target);
    ModelBundle prev = ModelBundle::load_file(previous);  // refuse to put back what the plugin would refuse
    const std::string current_id = ::lstat(target.c_str(), &st) == 0 ? id_of(target) : "";
    // Swap: the current model becomes the previous one, so a second --rollback undoes the first. Both copies
    // are made before anything is renamed, and .previous is replaced first: a failure in between leaves the
    // live model as it was.
    TempFiles tmp;
    const std::string hold = tmp.add(write_beside(target, read_all(previous), 0644, "publish"));
    std::string keep;
    if (!current_id.empty()) keep = tmp.add(write_beside(previous, read_all(target), 0644, "publish"));
    if (!keep.empty()) {
        rename_into_place(keep, previous);
        tmp.done(keep);
    }
    rename_into_place(hold, target);
    tmp.done(hold);
    sync_directory_of(target);
    std::printf("jfp publish: rolled %s back to model %s", target.c_str(), prev.model_id().c_str());
    if (!current_id.empty()) std::printf("; model %s is now %s (--rollback again undoes this)", current_id.c_str(), previous.c_str());
    std::printf("\n");
}

// The model installed at the target, when this jfp can load it (said when it cannot).
std::optional<ModelBundle> installed_model(const std::string &target) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) return std::nullopt;
    try {
        return ModelBundle::load_file(target);
    } catch (const std::exception &e) {
        std::printf("jfp publish: not compared with the model installed at %s: this jfp cannot load it (%s)\n",
                    target.c_str(), e.what());
        return std::nullopt;
    }
}

void refuse(const PublishArgs &a, const std::string &target) {
    std::fprintf(stderr, "jfp publish: refused: %s is not installed; %s keeps its model (--force publishes anyway)\n",
                 a.bundle.c_str(), target.c_str());
    g_exit_status = 1;
}

void run_publish(const PublishArgs &a) {
    if (a.rollback) {
        if (!a.bundle.empty()) throw UsageError("--rollback", "takes no bundle: it puts back the one jfp publish kept");
        return run_rollback(a);
    }
    if (a.bundle.empty()) throw UsageError("BUNDLE", "give the bundle jfp train wrote, or --rollback");
    const std::string text = read_all(a.bundle);
    ModelBundle bundle = ModelBundle::load_text(text, a.bundle);  // what the plugin would refuse, refused here
    const std::string target = target_path(a);
    // Held from before the installed model is read until the new one is in place: the model judged against
    // is the model replaced.
    PublishLock lock(target);
    std::optional<ModelBundle> installed = installed_model(target);
    if (installed && installed->model_id() == bundle.model_id()) {
        // Installing it again would make .previous a copy of it and lose the model --rollback goes back to.
        std::printf("jfp publish: model %s is already installed as %s: nothing to do\n", bundle.model_id().c_str(),
                    target.c_str());
        return;
    }

    // Gate 1, the rules: the site's jobs after the bundle's training window when there are enough, else the
    // comparison jfp train recorded on its validation window.
    std::optional<RuleComparison> cmp;
    std::optional<ScoredJobs> scored;
    std::string where;
    const std::string db = store_path(a);
    // The jobs the bundle never learned from, as jfp eval and jfp report take them: one verdict per bundle.
    const auto cutoff = unseen_from(bundle);
    const auto installed_cutoff = installed ? unseen_from(*installed) : std::nullopt;
    // A bundle trained without --before saw every job that had ended then: what came after is unseen.
    const std::string cutoff_text = !cutoff ? ""
                                    : training_cutoff(bundle) ? "its training cutoff " + format_sacct_time(*cutoff)
                                                              : "the end of its training window " + format_sacct_time(*cutoff);
    if (!db.empty() && cutoff) {
        HistoryStore store(db, HistoryStore::Access::ReadOnly);
        scored = score_jobs_after(store, bundle, *cutoff, installed && installed_cutoff ? &*installed : nullptr);
        RuleComparison recent = rules_comparison(*scored, bundle);
        if (recent.failures >= a.min_failures) {
            cmp = recent;
            where = "the " + std::to_string(recent.jobs) + (recent.jobs == 1 ? " job of " : " jobs of ") + db + " submitted since " + cutoff_text;
        } else {
            std::printf("jfp publish: %s holds %zu finished %s (%zu failed) since %s, fewer than %zu failures: judging on jfp train's record instead\n",
                        db.c_str(), recent.jobs, recent.jobs == 1 ? "job" : "jobs", recent.failures, cutoff_text.c_str(), a.min_failures);
        }
    }
    if (!cmp) {
        cmp = recorded_comparison(bundle);
        if (cmp) where = "its " + bundle.metadata().at("model_choice").value("rows", std::string("validation window"));
    }
    if (!cmp) {
        if (!a.force)
            throw std::runtime_error(a.bundle + " records no comparison with the history rules (jfp train before rules bundles) and there is no recent history to measure it on (--db); retrain with this jfp, or --force");
        std::printf("jfp publish: --force: %s was not compared with the rules\n", a.bundle.c_str());
    } else {
        Verdict v = judge(bundle, cmp->model, cmp->rules, where);
        std::printf("%s\n", v.line.c_str());
        if (!v.fit && !a.force) return refuse(a, target);
        if (!v.fit) std::printf("jfp publish: --force: publishing a model the rules beat\n");
    }

    // Gate 2, the model installed: a weekly retrain that falls back to the rules must not replace a better
    // tree. Both on the jobs neither trained on; when there are none to compare on, it says why.
    if (installed) {
        const std::string id = installed->model_id();
        auto skip = [&](const std::string &why) {
            std::printf("jfp publish: not compared with the installed model %s: %s\n", id.c_str(), why.c_str());
        };
        if (db.empty()) {
            skip("no history store to measure both on (--db)");
        } else if (!cutoff) {
            skip(a.bundle + " records no training window: which jobs it has not seen is unknown");
        } else if (!installed_cutoff) {
            skip("it records no training window: which jobs it has not seen is unknown");
        } else {
            const int64_t after = std::max(*cutoff, *installed_cutoff);
            ModelVsInstalled m = compare_with_installed(*scored, bundle, *installed, after);
            const std::string since = format_sacct_time(after);
            if (m.failures < a.min_failures) {
                skip(std::to_string(m.failures) + " failed jobs since " + since + " (neither trained on them), fewer than " +
                     std::to_string(a.min_failures));
            } else {
                const bool better = m.candidate.pr_auc >= m.installed.pr_auc - kVerdictTie;
                std::printf("jfp publish: against the installed model %s on the %zu jobs (%zu failed) since %s, which "
                            "neither trained on: PR-AUC %.3f vs %.3f: %s\n",
                            id.c_str(), m.jobs, m.failures, since.c_str(), m.candidate.pr_auc, m.installed.pr_auc,
                            better ? "at least as good" : "the installed model ranks failures better");
                if (!better && !a.force) return refuse(a, target);
                if (!better) std::printf("jfp publish: --force: replacing a model that ranks these jobs better\n");
            }
        }
    }

    struct stat st {};
    const bool had = ::lstat(target.c_str(), &st) == 0;
    TempFiles tmp;
    const std::string fresh = tmp.add(write_beside(target, text, 0644, "publish"));
    std::string kept;
    if (had) {
        const std::string prev = tmp.add(write_beside(target + ".previous", read_all(target), 0644, "publish"));
        rename_into_place(prev, target + ".previous");
        tmp.done(prev);
        kept = id_of(target + ".previous");
    }
    rename_into_place(fresh, target);
    tmp.done(fresh);
    sync_directory_of(target);
    std::printf("jfp publish: installed model %s (%s) as %s", bundle.model_id().c_str(), bundle.describe_kind().c_str(), target.c_str());
    if (had) std::printf("; the model it replaced, %s, is %s.previous (jfp publish --rollback)", kept.c_str(), target.c_str());
    else std::printf("; no model was there before, so there is none to roll back to");
    std::printf("\n");
}

}  // namespace

void add_publish_command(Command &app) {
    auto a = std::make_shared<PublishArgs>();
    auto *c = app.add_subcommand("publish",
                                 "Install a model bundle where jfp.conf's model points, unless a history rule or the model "
                                 "installed beats it; keep the previous one (--rollback)");
    c->add_option("BUNDLE", a->bundle, "the bundle jfp train wrote");
    c->add_option("--conf", a->conf, "the jfp.conf the plugin reads (default: beside $SLURM_CONF, else /etc/slurm/jfp.conf)");
    c->add_option("--target", a->target, "install here instead of jfp.conf's model");
    c->add_option("--db", a->db, "history store to judge the bundle on (default: jfp.conf's store, when it exists)");
    c->add_option("--min-failures", a->min_failures,
                  "failed jobs since the training cutoff needed to judge on them rather than on the bundle's validation")
        ->capture_default_str();
    c->add_flag("--force", a->force, "publish even a bundle the rules or the installed model beat");
    c->add_flag("--rollback", a->rollback, "put back the model the last publish replaced");
    c->callback([a] { run_publish(*a); });
}

}  // namespace jfp
