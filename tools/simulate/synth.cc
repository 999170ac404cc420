#include "tools/simulate/synth.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <random>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "model/sacct/sacct_reader.h"
#include "model/store/history_store.h"
#include "model/jobs/outcome.h"
#include "model/util/time_util.h"

namespace jfp {

namespace {

const char *kApps[] = {"wrf", "icon", "echam", "mpiom", "cesm", "cp2k", "gromacs", "lammps", "vasp", "namd",
                       "openfoam", "quantum_espresso", "nwchem", "orca", "train", "infer", "postproc", "preproc",
                       "plot", "convert", "mesh", "solver", "sweep", "analysis", "blast", "bwa", "gatk", "star",
                       "cdo_merge", "regrid", "nemo", "fesom", "hmc", "lattice", "dft", "md", "climate", "ocean"};
const char *kSuffix[] = {"", "_run", "_exp", "_test", "_prod", "_long", "_small", "_big", "_v2", "_ens"};
const char *kPartitions[] = {"batch", "gpu", "long", "debug"};
const char *kQos[] = {"normal", "high", "low"};

struct User {
    std::string name, account;
    double activity;
    double p_break, p_fix, time_pad, mem_pad, p_wait;
    bool numbers_runs;
    int partition;  // favourite
    int qos;
    std::vector<int> apps;
};

struct App {
    std::string base;  // job name (or stem when the user numbers runs)
    int global_id;
    double median_runtime_s;
    double mem_per_cpu_mb;
    int cpus, nodes, gpus;
    int partition;
    double timelimit_min;
    double req_mem_per_cpu_mb;
    bool broken = false;
    bool fresh = true;
    int array_size = 1;
    bool interactive = false;
    int run_counter = 0;
    double weight;
};

struct Job {
    uint32_t user, app;
    int32_t run_no;  // -1: name without number
    int64_t submit, start, end;
    Outcome outcome;
    int exit_code, exit_signal;
    int cpus, nodes, gpus;
    float mem_total_mb, timelimit_min, max_rss_mb;
    int partition, qos;
    int32_t array_index;  // -1 not an array task
    uint32_t array_group;  // submission id shared by tasks of one array
    bool interactive, dependency;
    uint32_t raw_id = 0, master_id = 0;
};

double nice_minutes(double m) {
    static const double steps[] = {5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 240, 360, 480, 720, 1440, 2880, 4320, 10080};
    for (double s : steps)
        if (m <= s) return s;
    return 10080;
}

std::string fmt_duration(double seconds) {
    long s = static_cast<long>(seconds);
    long d = s / 86400;
    s %= 86400;
    char buf[48];
    if (d > 0)
        std::snprintf(buf, sizeof buf, "%ld-%02ld:%02ld:%02ld", d, s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

}  // namespace

SynthStats generate_workload(const SynthOptions &opt, std::FILE *out) {
    std::mt19937_64 rng(opt.seed);
    std::uniform_real_distribution<double> U(0, 1);
    auto lognormal = [&](double median, double sigma) { return median * std::exp(sigma * std::normal_distribution<double>(0, 1)(rng)); };
    auto chance = [&](double p) { return U(rng) < p; };

    uint64_t n_users = opt.users ? opt.users : std::clamp<uint64_t>(opt.jobs / 800, 20, 3000);
    double days = opt.days > 0 ? opt.days : std::max(14.0, static_cast<double>(opt.jobs) / 4000.0);
    auto start = parse_sacct_time(opt.start);
    if (!start) throw std::runtime_error("synth: --start '" + opt.start + "' is not a date");

    std::vector<User> users;
    std::vector<App> apps;
    size_t n_accounts = std::max<uint64_t>(2, n_users / 6);
    auto new_app = [&](User &u) {
        App a;
        a.global_id = static_cast<int>(apps.size());
        std::string base = kApps[rng() % (sizeof kApps / sizeof *kApps)];
        base += kSuffix[rng() % (sizeof kSuffix / sizeof *kSuffix)];
        a.base = base;
        a.median_runtime_s = std::clamp(lognormal(1200, 1.4), 20.0, 3 * 86400.0);
        a.partition = chance(0.7) ? u.partition : static_cast<int>(rng() % 4);
        if (a.partition == 3) a.median_runtime_s = std::min(a.median_runtime_s, 900.0);
        if (a.partition == 2) a.median_runtime_s *= 4;
        int pow2 = static_cast<int>(std::floor(std::clamp(std::normal_distribution<double>(3, 2)(rng), 0.0, 9.0)));
        a.cpus = 1 << pow2;
        a.nodes = std::max(1, (a.cpus + 47) / 48);
        a.gpus = a.partition == 1 ? 1 + static_cast<int>(rng() % 4) : 0;
        a.mem_per_cpu_mb = std::clamp(lognormal(1500, 0.8), 100.0, 16000.0);
        a.timelimit_min = nice_minutes(a.median_runtime_s / 60.0 * u.time_pad);
        a.req_mem_per_cpu_mb = std::ceil(a.mem_per_cpu_mb * u.mem_pad / 100.0) * 100.0;
        a.array_size = chance(0.08) ? 5 + static_cast<int>(rng() % 46) : 1;
        a.interactive = a.array_size == 1 && chance(0.05);
        a.broken = chance(0.12);  // first versions often do not work yet
        a.weight = std::pow(U(rng) + 0.05, -1.3);
        apps.push_back(a);
        u.apps.push_back(a.global_id);
    };
    for (uint64_t i = 0; i < n_users; ++i) {
        User u;
        char name[32];
        std::snprintf(name, sizeof name, "user%04llu", static_cast<unsigned long long>(i + 1));
        u.name = name;
        char acct[32];
        std::snprintf(acct, sizeof acct, "proj%03llu", static_cast<unsigned long long>(rng() % n_accounts + 1));
        u.account = acct;
        u.activity = std::pow(U(rng) + 0.05, -1.0);
        double kind = U(rng);
        if (kind < 0.70) u.p_break = 0.01 + 0.03 * U(rng);
        else if (kind < 0.95) u.p_break = 0.04 + 0.06 * U(rng);
        else u.p_break = 0.15 + 0.15 * U(rng);
        u.p_fix = 0.08 + 0.22 * U(rng);
        u.time_pad = chance(0.08) ? 0.6 + 0.6 * U(rng) : std::clamp(lognormal(2.0, 0.5), 1.1, 8.0);
        u.mem_pad = chance(0.05) ? 0.7 + 0.45 * U(rng) : std::clamp(lognormal(1.8, 0.4), 1.1, 6.0);
        u.p_wait = 0.6 + 0.35 * U(rng);
        u.numbers_runs = chance(0.3);
        double pr = U(rng);
        u.partition = pr < 0.6 ? 0 : pr < 0.8 ? 1 : pr < 0.92 ? 2 : 3;
        u.qos = chance(0.85) ? 0 : 1 + static_cast<int>(rng() % 2);
        users.push_back(u);
        int k = 1 + static_cast<int>(std::geometric_distribution<int>(0.18)(rng));
        for (int j = 0; j < std::min(k, 40); ++j) new_app(users.back());
    }
    std::vector<double> activity;
    for (auto &u : users) activity.push_back(u.activity);
    std::discrete_distribution<size_t> pick_user(activity.begin(), activity.end());
    // Submissions follow the working day: more between 9 and 18, fewer at night and on weekends.
    const double hour_w[24] = {0.3, 0.2, 0.2, 0.15, 0.15, 0.2, 0.3, 0.6, 1.0, 1.5, 1.8, 1.9,
                               1.6, 1.8, 2.0, 2.0, 1.8, 1.5, 1.1, 0.9, 0.8, 0.7, 0.5, 0.4};
    std::discrete_distribution<int> pick_hour(std::begin(hour_w), std::end(hour_w));
    auto session_start = [&]() -> int64_t {
        while (true) {
            int64_t day = static_cast<int64_t>(U(rng) * days);
            int wd = weekday(*start + day * 86400);
            if (wd >= 5 && !chance(0.4)) continue;
            return *start + day * 86400 + pick_hour(rng) * 3600 + static_cast<int64_t>(U(rng) * 3600);
        }
    };

    std::vector<Job> jobs;
    jobs.reserve(opt.jobs + 64);
    uint32_t submission = 0;
    while (jobs.size() < opt.jobs) {
        size_t ui = pick_user(rng);
        User &u = users[ui];
        if (chance(0.04) && u.apps.size() < 60) new_app(u);
        std::vector<double> w;
        for (int a : u.apps) w.push_back(apps[static_cast<size_t>(a)].weight);
        App &app = apps[static_cast<size_t>(u.apps[std::discrete_distribution<size_t>(w.begin(), w.end())(rng)])];
        // An edit at the start of a session may break a working application.
        if (!app.fresh && !app.broken && chance(u.p_break)) app.broken = true;
        app.fresh = false;
        int runs = 1 + std::geometric_distribution<int>(0.3)(rng);
        int64_t t = session_start();
        const int64_t horizon = *start + static_cast<int64_t>(days * 86400);
        for (int r = 0; r < runs && r < 25 && t < horizon && jobs.size() < opt.jobs; ++r) {
            ++submission;
            int run_no = u.numbers_runs ? ++app.run_counter : -1;
            int64_t wait = static_cast<int64_t>(std::exponential_distribution<double>(1.0 / (120.0 + 60.0 * app.nodes))(rng));
            bool dependency = chance(0.04);
            int64_t latest_end = t;
            bool any_fail = false;
            Outcome shown = Outcome::Completed;  // what the user reacts to: the first task's outcome
            for (int task = 0; task < app.array_size; ++task) {
                Job j{};
                j.user = static_cast<uint32_t>(ui);
                j.app = static_cast<uint32_t>(app.global_id);
                j.run_no = run_no;
                j.submit = t;
                j.start = t + wait + task * static_cast<int64_t>(std::min(app.median_runtime_s / 4, 600.0));
                j.cpus = app.cpus;
                j.nodes = app.nodes;
                j.gpus = app.gpus;
                j.mem_total_mb = static_cast<float>(app.req_mem_per_cpu_mb * app.cpus);
                j.timelimit_min = static_cast<float>(app.timelimit_min);
                j.partition = app.partition;
                j.qos = u.qos;
                j.array_index = app.array_size > 1 ? task : -1;
                j.array_group = submission;
                j.interactive = app.interactive;
                j.dependency = dependency;
                double runtime = app.median_runtime_s * std::exp(0.35 * std::normal_distribution<double>(0, 1)(rng));
                double mem_peak = app.mem_per_cpu_mb * app.cpus * std::exp(0.15 * std::normal_distribution<double>(0, 1)(rng));
                double elapsed = runtime;
                j.outcome = Outcome::Completed;
                j.exit_code = 0;
                j.exit_signal = 0;
                if (chance(0.017)) {
                    j.outcome = Outcome::Cancelled;
                    elapsed = chance(0.5) ? -1 : runtime * U(rng);
                } else if (app.broken && chance(0.88)) {
                    j.outcome = Outcome::Failed;
                    j.exit_code = chance(0.6) ? 1 : chance(0.5) ? 127 : 2;
                    elapsed = 2 + U(rng) * std::min(600.0, runtime);
                } else if (runtime > app.timelimit_min * 60) {
                    j.outcome = Outcome::Timeout;
                    elapsed = app.timelimit_min * 60;
                } else if (mem_peak > app.req_mem_per_cpu_mb * app.cpus) {
                    j.outcome = Outcome::OutOfMemory;
                    j.exit_code = 0;
                    j.exit_signal = 9;
                    elapsed = runtime * (0.05 + 0.6 * U(rng));
                } else if (chance(0.0002 * app.nodes)) {
                    j.outcome = Outcome::NodeFail;
                    elapsed = runtime * U(rng);
                } else if (chance(0.007)) {
                    j.outcome = Outcome::Failed;  // the file system, the network, bad luck
                    j.exit_code = chance(0.5) ? 1 : 134;
                    elapsed = runtime * U(rng);
                }
                if (elapsed < 0) {  // cancelled while pending
                    j.start = 0;
                    j.end = t + static_cast<int64_t>(U(rng) * std::max<int64_t>(wait, 60));
                    j.max_rss_mb = 0;
                } else {
                    j.end = j.start + static_cast<int64_t>(std::max(1.0, elapsed));
                    double frac = j.outcome == Outcome::Completed ? 1.0 : std::min(1.0, elapsed / runtime);
                    j.max_rss_mb = static_cast<float>(j.outcome == Outcome::OutOfMemory
                                                          ? app.req_mem_per_cpu_mb * app.cpus
                                                          : mem_peak * (0.5 + 0.5 * frac));
                }
                latest_end = std::max(latest_end, j.end);
                any_fail |= is_failure(j.outcome);
                if (task == 0) shown = j.outcome;
                jobs.push_back(j);
            }
            // The user reacts to what they saw.
            if (shown == Outcome::Failed && app.broken && chance(u.p_fix)) app.broken = false;
            if (shown == Outcome::Timeout && chance(0.5)) app.timelimit_min = nice_minutes(app.timelimit_min * 2.0);
            if (shown == Outcome::OutOfMemory && chance(0.5)) app.req_mem_per_cpu_mb *= 2;
            if (any_fail && chance(0.5)) ++runs;  // a failure asks for another try
            // Next submission: most users wait for the result, some queue the next run right away.
            if (chance(u.p_wait)) t = latest_end + static_cast<int64_t>(lognormal(900, 1.2));
            else t += static_cast<int64_t>(lognormal(120, 1.0));
        }
    }

    std::stable_sort(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) { return a.submit < b.submit; });
    // Ids in submit order; the tasks of one array share the first task's id as the array job id.
    std::unordered_map<uint32_t, uint32_t> array_master;
    uint32_t next_id = 1000;
    for (auto &j : jobs) {
        j.raw_id = next_id++;
        if (j.array_index >= 0) {
            auto it = array_master.find(j.array_group);
            if (it == array_master.end()) it = array_master.emplace(j.array_group, j.raw_id).first;
            j.master_id = it->second;
        }
    }

    SynthStats st;
    auto name_of = [&](const Job &j) -> std::string {
        const App &a = apps[j.app];
        if (opt.trace_style) return "app" + std::to_string(a.global_id);
        if (j.run_no < 0) return a.base;
        char buf[16];
        std::snprintf(buf, sizeof buf, "_%03d", j.run_no % 1000);
        return a.base + buf;
    };
    auto time_or_unknown = [](int64_t t) { return t > 0 ? format_sacct_time(t) : std::string("Unknown"); };
    auto state_text = [&](const Job &j) -> std::string {
        if (j.outcome == Outcome::Cancelled) return "CANCELLED by " + std::to_string(60000 + j.user);
        return outcome_name(j.outcome);
    };
    if (opt.trace_style)
        std::fputs("JobID|JobIDRaw|User|Account|Partition|QOS|JobName|Submit|Start|End|Elapsed|State|ExitCode|NCPUS|Timelimit\n", out);
    else
        std::fputs("JobIDRaw|JobID|Cluster|User|Account|Partition|QOS|JobName|Submit|Start|End|ElapsedRaw|State|ExitCode|"
                   "ReqCPUS|ReqNodes|ReqMem|ReqTRES|Timelimit|MaxRSS|SubmitLine\n",
                   out);
    std::unordered_map<uint64_t, std::pair<int64_t, Outcome>> last_by_name;  // (user, name) -> last finished run
    std::vector<std::pair<int64_t, size_t>> by_end;
    for (size_t i = 0; i < jobs.size(); ++i) by_end.emplace_back(jobs[i].end, i);
    for (const Job &j : jobs) {
        const User &u = users[j.user];
        std::string name = name_of(j);
        std::string job_id = j.array_index >= 0 ? std::to_string(j.master_id) + "_" + std::to_string(j.array_index)
                                                : std::to_string(j.raw_id);
        double elapsed = j.start > 0 ? static_cast<double>(j.end - j.start) : 0;
        std::string tl = fmt_duration(j.timelimit_min * 60.0);
        ++st.jobs;
        switch (j.outcome) {
            case Outcome::Completed: ++st.completed; break;
            case Outcome::Failed: ++st.failed; break;
            case Outcome::Timeout: ++st.timeout; break;
            case Outcome::OutOfMemory: ++st.oom; break;
            case Outcome::NodeFail: ++st.node_fail; break;
            case Outcome::Cancelled: ++st.cancelled; break;
            default: break;
        }
        if (opt.trace_style) {
            std::fprintf(out, "%s|%u|%s|%s|%s|normal|%s|%s|%s|%s|%s|%s|%d:%d|%d|%s\n", job_id.c_str(), j.raw_id,
                         u.name.c_str(), u.account.c_str(), kPartitions[j.partition], name.c_str(),
                         format_sacct_time(j.submit).c_str(), time_or_unknown(j.start).c_str(),
                         format_sacct_time(j.end).c_str(), fmt_duration(elapsed).c_str(), state_text(j).c_str(),
                         j.exit_code, j.exit_signal, j.cpus, tl.c_str());
            ++st.rows;
            continue;
        }
        char tres[160];
        if (j.gpus > 0)
            std::snprintf(tres, sizeof tres, "billing=%d,cpu=%d,gres/gpu=%d,mem=%.0fM,node=%d", j.cpus, j.cpus, j.gpus,
                          j.mem_total_mb, j.nodes);
        else
            std::snprintf(tres, sizeof tres, "billing=%d,cpu=%d,mem=%.0fM,node=%d", j.cpus, j.cpus, j.mem_total_mb, j.nodes);
        std::string submit_line;
        if (j.interactive)
            submit_line = "srun -p " + std::string(kPartitions[j.partition]) + " -n " + std::to_string(j.cpus) + " ./" + name;
        else
            submit_line = std::string("sbatch") + (j.dependency ? " --dependency=afterok:" + std::to_string(j.raw_id - 1) : "") +
                          " -p " + kPartitions[j.partition] + " -t " + tl +
                          (j.array_index >= 0 ? " --array=0-" + std::to_string(apps[j.app].array_size - 1) : "") + " " +
                          name + ".sh";
        std::fprintf(out, "%u|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%.0f|%s|%d:%d|%d|%d|%.0fM|%s|%s||%s\n", j.raw_id,
                     job_id.c_str(), opt.cluster.c_str(), u.name.c_str(), u.account.c_str(), kPartitions[j.partition],
                     kQos[j.qos], name.c_str(), format_sacct_time(j.submit).c_str(), time_or_unknown(j.start).c_str(),
                     format_sacct_time(j.end).c_str(), elapsed, state_text(j).c_str(), j.exit_code, j.exit_signal,
                     j.cpus, j.nodes, j.mem_total_mb, tres, tl.c_str(), submit_line.c_str());
        ++st.rows;
        if (opt.steps && j.start > 0) {
            const char *step_state = j.outcome == Outcome::Completed ? "COMPLETED"
                                     : j.outcome == Outcome::OutOfMemory ? "OUT_OF_MEMORY"
                                     : j.outcome == Outcome::Cancelled  ? "CANCELLED"
                                                                        : "FAILED";
            if (!j.interactive) {
                std::fprintf(out, "%u.batch|%s.batch|%s||%s|||batch|%s|%s|%s|%.0f|%s|%d:%d|%d|%d|%.0fM|||%.0fK|\n",
                             j.raw_id, job_id.c_str(), opt.cluster.c_str(), u.account.c_str(),
                             format_sacct_time(j.submit).c_str(), format_sacct_time(j.start).c_str(),
                             format_sacct_time(j.end).c_str(), elapsed, step_state, j.exit_code, j.exit_signal, j.cpus,
                             j.nodes, j.mem_total_mb, static_cast<double>(j.max_rss_mb) * 1024.0);
                ++st.rows;
            }
            std::fprintf(out, "%u.extern|%s.extern|%s||%s|||extern|%s|%s|%s|%.0f|COMPLETED|0:0|%d|%d|%.0fM|||1024K|\n",
                         j.raw_id, job_id.c_str(), opt.cluster.c_str(), u.account.c_str(),
                         format_sacct_time(j.submit).c_str(), format_sacct_time(j.start).c_str(),
                         format_sacct_time(j.end).c_str(), elapsed, j.cpus, j.nodes, j.mem_total_mb);
            ++st.rows;
        }
    }
    // Transition statistics, in the order runs finished (what a user sees).
    std::sort(by_end.begin(), by_end.end());
    for (auto &[end, i] : by_end) {
        const Job &j = jobs[i];
        if (!is_labeled(j.outcome)) continue;
        uint64_t key = (static_cast<uint64_t>(j.user) << 32) ^ std::hash<std::string>()(name_of(j));
        auto it = last_by_name.find(key);
        if (it == last_by_name.end()) {
            ++st.first_runs;
            st.first_run_fail += is_failure(j.outcome);
        } else if (is_failure(it->second.second)) {
            ++st.after_fail;
            st.fail_after_fail += is_failure(j.outcome);
        }
        last_by_name[key] = {end, j.outcome};
    }
    return st;
}

void ingest_export_file(HistoryStore &store, const std::string &path) {
    SacctReader reader({}, [&](JobRecord &&j) { store.put_job(j); }, [&](StepInfo &&s) { store.put_step(s); });
    std::FILE *in = std::fopen(path.c_str(), "rb");
    if (!in) throw std::runtime_error("cannot read " + path);
    auto id = store.begin_ingest(path);
    reader.read(in, path);
    std::fclose(in);
    store.finish_ingest(id, reader.report());
}

SynthStats synthesize_into_store(const SynthOptions &opt, HistoryStore &store, const std::string &scratch) {
    std::FILE *out = std::fopen(scratch.c_str(), "wb");
    if (!out) throw std::runtime_error("cannot write " + scratch);
    SynthStats stats = generate_workload(opt, out);
    std::fclose(out);
    ingest_export_file(store, scratch);
    std::remove(scratch.c_str());
    return stats;
}

SynthStats write_synthetic_export(const SynthOptions &opt, const std::string &path, bool quiet) {
    std::FILE *out = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
    if (!out) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    static char buf[1 << 20];
    std::setvbuf(out, buf, _IOFBF, sizeof buf);
    SynthStats s = generate_workload(opt, out);
    if (std::fflush(out) != 0 || (out != stdout && std::fclose(out) != 0))
        throw std::runtime_error("error writing " + path + ": " + std::strerror(errno));
    if (quiet) return s;
    auto pct = [&](uint64_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(s.jobs); };
    std::fprintf(stderr,
                 "jfp synth: %llu jobs (%llu rows): completed %.1f%%, failed %.1f%%, timeout %.1f%%, out of memory "
                 "%.2f%%, node fail %.3f%%, cancelled %.1f%%\n",
                 static_cast<unsigned long long>(s.jobs), static_cast<unsigned long long>(s.rows), pct(s.completed),
                 pct(s.failed), pct(s.timeout), pct(s.oom), pct(s.node_fail), pct(s.cancelled));
    std::fprintf(stderr,
                 "jfp synth: after a failed run of a user+name, the next finished run failed %.1f%% of the time; first "
                 "runs failed %.1f%%\n",
                 s.after_fail ? 100.0 * static_cast<double>(s.fail_after_fail) / static_cast<double>(s.after_fail) : 0.0,
                 s.first_runs ? 100.0 * static_cast<double>(s.first_run_fail) / static_cast<double>(s.first_runs) : 0.0);
    return s;
}

}  // namespace jfp
