#include "tools/publish/publish.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cstdarg>
#include <optional>
#include <stdexcept>

#include "model/scoring/model_bundle.h"
#include "model/util/text.h"
#include "model/util/time_util.h"
#include "tools/evaluate/verdict.h"
#include "tools/publish/model_files.h"
#include "tools/publish/publish_lock.h"

namespace jfp {

namespace {

std::function<void()> say_waiting(std::ostream &err, const std::string &target) {
    return [&err, target] { err << "jfp publish: waiting for another jfp publish on " << target << "\n" << std::flush; };
}

PublishResult roll_back(const PublishRequest &r, std::ostream &out, std::ostream &err) {
    const std::string target = r.target();
    const std::string previous = target + ".previous";
    struct stat st {};
    if (::lstat(previous.c_str(), &st) != 0)
        throw std::runtime_error("nothing to roll back to: " + previous + " does not exist (jfp publish keeps it when it replaces a model)");
    PublishLock lock(target, say_waiting(err, target));
    const RolledBack rb = roll_back_model(target);
    std::string o;
    appendf(o, "jfp publish: rolled %s back to model %s", target.c_str(), rb.restored_id.c_str());
    if (!rb.replaced_id.empty())
        appendf(o, "; model %s is now %s (--rollback again undoes this)", rb.replaced_id.c_str(), previous.c_str());
    out << o << "\n" << std::flush;
    return PublishResult::RolledBack;
}

// Lines said as they are decided: a later failure leaves what was judged on the screen.
void say(std::ostream &out, const char *format, ...) __attribute__((format(printf, 2, 3)));
void say(std::ostream &out, const char *format, ...) {
    std::string line;
    va_list args;
    va_start(args, format);
    vappendf(line, format, args);
    va_end(args);
    out << line << std::flush;
}

}  // namespace

PublishResult publish_model(const PublishRequest &r, std::ostream &out, std::ostream &err) {
    if (r.rollback) return roll_back(r, out, err);
    const std::string text = read_file_text(r.bundle);
    ModelBundle bundle = ModelBundle::load_text(text, r.bundle);  // what the plugin would refuse, refused here
    const std::string target = r.target();
    auto refuse = [&] {
        err << "jfp publish: refused: " << r.bundle << " is not installed; " << target
            << " keeps its model (--force publishes anyway)\n" << std::flush;
        return PublishResult::Refused;
    };
    // Held from before the installed model is read until the new one is in place: the model judged against
    // is the model replaced.
    PublishLock lock(target, say_waiting(err, target));
    std::string unloadable;
    std::optional<ModelBundle> installed = load_installed_model(target, unloadable);
    if (!unloadable.empty())
        say(out, "jfp publish: not compared with the model installed at %s: this jfp cannot load it (%s)\n", target.c_str(),
            unloadable.c_str());
    if (installed && installed->model_id() == bundle.model_id()) {
        // Installing it again would make .previous a copy of it and lose the model --rollback goes back to.
        say(out, "jfp publish: model %s is already installed as %s: nothing to do\n", bundle.model_id().c_str(), target.c_str());
        return PublishResult::AlreadyInstalled;
    }

    // Gate 1, the rules: the site's jobs after the bundle's training window when there are enough, else the
    // comparison jfp train recorded on its validation window.
    std::optional<RuleComparison> cmp;
    std::optional<ScoredJobs> scored;
    std::string where;
    const std::string db = r.store();
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
        if (recent.failures >= r.min_failures) {
            cmp = recent;
            where = "the " + std::to_string(recent.jobs) + (recent.jobs == 1 ? " job of " : " jobs of ") + db + " submitted since " + cutoff_text;
        } else {
            say(out, "jfp publish: %s holds %zu finished %s (%zu failed) since %s, fewer than %zu failures: judging on jfp train's record instead\n",
                db.c_str(), recent.jobs, recent.jobs == 1 ? "job" : "jobs", recent.failures, cutoff_text.c_str(), r.min_failures);
        }
    }
    if (!cmp) {
        cmp = recorded_comparison(bundle);
        if (cmp) where = "its " + bundle.metadata().at("model_choice").value("rows", std::string("validation window"));
    }
    if (!cmp) {
        if (!r.force)
            throw std::runtime_error(r.bundle + " records no comparison with the history rules (jfp train before rules bundles) and there is no recent history to measure it on (--db); retrain with this jfp, or --force");
        say(out, "jfp publish: --force: %s was not compared with the rules\n", r.bundle.c_str());
    } else {
        Verdict v = judge(bundle, cmp->model, cmp->rules, where);
        say(out, "%s\n", v.line.c_str());
        if (!v.fit && !r.force) return refuse();
        if (!v.fit) say(out, "jfp publish: --force: publishing a model the rules beat\n");
    }

    // Gate 2, the model installed: a weekly retrain that falls back to the rules must not replace a better
    // tree. Both on the jobs neither trained on; when there are none to compare on, it says why.
    if (installed) {
        const std::string id = installed->model_id();
        auto skip = [&](const std::string &why) {
            say(out, "jfp publish: not compared with the installed model %s: %s\n", id.c_str(), why.c_str());
        };
        if (db.empty()) {
            skip("no history store to measure both on (--db)");
        } else if (!cutoff) {
            skip(r.bundle + " records no training window: which jobs it has not seen is unknown");
        } else if (!installed_cutoff) {
            skip("it records no training window: which jobs it has not seen is unknown");
        } else {
            const int64_t after = std::max(*cutoff, *installed_cutoff);
            ModelVsInstalled m = compare_with_installed(*scored, bundle, *installed, after);
            const std::string since = format_sacct_time(after);
            if (m.failures < r.min_failures) {
                skip(std::to_string(m.failures) + " failed jobs since " + since + " (neither trained on them), fewer than " +
                     std::to_string(r.min_failures));
            } else {
                const bool better = m.candidate.pr_auc >= m.installed.pr_auc - kVerdictTie;
                say(out, "jfp publish: against the installed model %s on the %zu jobs (%zu failed) since %s, which "
                    "neither trained on: PR-AUC %.3f vs %.3f: %s\n",
                    id.c_str(), m.jobs, m.failures, since.c_str(), m.candidate.pr_auc, m.installed.pr_auc,
                    better ? "at least as good" : "the installed model ranks failures better");
                if (!better && !r.force) return refuse();
                if (!better) say(out, "jfp publish: --force: replacing a model that ranks these jobs better\n");
            }
        }
    }

    const InstalledModel done = install_model_text(target, text);
    say(out, "jfp publish: installed model %s (%s) as %s", bundle.model_id().c_str(), bundle.describe_kind().c_str(), target.c_str());
    if (done.replaced)
        say(out, "; the model it replaced, %s, is %s.previous (jfp publish --rollback)", done.replaced_id.c_str(), target.c_str());
    else say(out, "; no model was there before, so there is none to roll back to");
    say(out, "\n");
    return PublishResult::Installed;
}

}  // namespace jfp
