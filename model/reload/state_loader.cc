#include "model/reload/state_loader.h"

#include <algorithm>

#include "model/files/file_check.h"
#include "model/util/log.h"

namespace jfp {

LoaderEvents StateLoader::poll(const PublishedState &current, bool load_history, const Publish &publish) {
    PublishedState next = current;
    LoaderEvents ev;
    bool changed = load_config(next, publish);
    if (changed) publish(next);
    if (next.config_present) {
        if (load_model(next, publish, ev)) changed = true;
        ev.store = store_.follow(next.config.store_path, load_history, next);
        if (ev.store.changed) {
            publish(next);
            if (!ev.store.line.empty()) log_info(ev.store.line);
            changed = true;
        }
        if (writers_.follow(next.config, next.writers)) changed = true;
        if (load_modules(next)) changed = true;
    }
    if (load_defaults(next)) changed = true;
    if (changed) publish(next);
    note_below_target(next);
    note_waste(next);
    for (WatchedFile *f : {&config_, &modules_, &model_}) f->tick();
    store_.tick();
    return ev;
}

bool StateLoader::load_config(PublishedState &next, const Publish &publish) {
    const std::string &path = opt_.config_path;
    if (!config_.changed(path)) return false;
    if (!config_.sig().exists) {
        if (next.config_present) log_info("config " + path + " was removed: the plugin is off");
        next.config = Config();
        next.config.mode = Mode::Off;
        next.config_present = false;
        next.config_note = "missing, plugin is off";
        return true;
    }
    // A jfp.conf is a few hundred bytes; a huge file is the wrong file, and is not read into slurmctld.
    TrustedRead f = read_trusted_file(path, opt_.trusted_uids, kMaxConfigBytes);
    ConfigParseResult r;
    if (f.problem.empty()) r = f.too_big ? config_too_big(path) : parse_config(f.out, path);
    if (f.problem.empty() && r.ok()) {
        const bool was_present = next.config_present;
        const std::string changes = was_present ? config_changes(next.config, r.config) : std::string();
        next.config = r.config;
        next.config_present = true;
        next.config_note = "loaded";
        config_.loaded();
        // The writers follow the config before it is published: a job scored under a config that names an
        // archive finds the archive's writer in the same state.
        writers_.follow(next.config, next.writers);
        publish(next);
        if (was_present)
            log_info("reloaded " + path + ": mode=" + mode_name(r.config.mode) +
                     (changes.empty() ? "; nothing changed" : "; changed: " + changes));
        return true;
    }
    const std::string err = f.problem.empty() ? r.error_text() : "refused: " + f.problem;
    if (config_.new_error(err))
        config_.report("config " + path + " not used (" + err + "); " +
                           (next.config_present ? "keeping the last good config" : "the plugin stays off"),
                       err);
    next.config_note = (next.config_present ? "invalid, keeping the last good config: " : "invalid, plugin is off: ") + err;
    return true;
}

// slurm.conf's partition defaults; a file it includes (its nodes or partitions, often) changes them as much.
bool StateLoader::load_defaults(PublishedState &next) {
    if (opt_.slurm_conf_path.empty()) return false;
    const bool included_changed = std::any_of(slurm_conf_included_.begin(), slurm_conf_included_.end(),
                                              [](const auto &f) { return file_sig(f.first) != f.second; });
    if (!slurm_conf_.changed(opt_.slurm_conf_path) && !included_changed) return false;
    std::string err;
    auto d = std::make_shared<const ClusterDefaults>(load_slurm_conf(opt_.slurm_conf_path, &err));
    if (!err.empty()) log_error("partition defaults: " + err + "; unset requests stay unknown");
    for (const auto &problem : d->problems)
        log_error("slurm.conf: " + problem + "; jfp prices that partition's jobs by CPU (fix it as slurm.conf(5) says)");
    slurm_conf_included_.clear();
    for (const auto &f : d->included) slurm_conf_included_.emplace_back(f, file_sig(f));
    next.defaults = d;
    return true;
}

}  // namespace jfp
