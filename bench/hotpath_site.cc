#include "bench/hotpath_site.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>

#include <nlohmann/json.hpp>

#include "model/sacct/sacct_reader.h"
#include "model/util/time_util.h"
#include "tools/simulate/synth.h"
#include "tools/train/trainer.h"

namespace hotpath {

double now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

Stats stats(std::vector<double> v) {
    Stats s;
    s.n = v.size();
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))]; };
    s.p50 = at(0.5);
    s.p99 = at(0.99);
    s.p999 = at(0.999);
    double sum = 0;
    for (double x : v) sum += x;
    s.mean = sum / static_cast<double>(v.size());
    return s;
}

namespace {

// A batch script of about `bytes` bytes that looks like the real thing.
std::string make_script(size_t bytes, std::mt19937_64 &rng) {
    static const char *lines[] = {
        "module load gcc/12.2 openmpi/4.1\n", "module load python/3.11\n", "source activate climate\n",
        "export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK\n", "cd $SLURM_SUBMIT_DIR\n",
        "srun ./model.exe --config run.nml > out.$SLURM_JOB_ID.log\n", "mpirun -np $SLURM_NTASKS ./solver input.dat\n",
        "python3 postprocess.py --in out --out plots\n", "# copy the restart files back to the project space\n",
        "cp -r restart/* /project/restart/ || exit 1\n", "if [ ! -f input.dat ]; then echo missing; exit 2; fi\n",
        "for i in $(seq 1 10); do ./step $i; done\n", "echo \"done at $(date)\"\n"};
    std::string s = "#!/bin/bash\n#SBATCH -N 1\n#SBATCH -n 4\n#SBATCH -t 01:00:00\n#SBATCH --mem=8G\nset -e\n";
    std::uniform_int_distribution<size_t> pick(0, sizeof lines / sizeof *lines - 1);
    while (s.size() < bytes) s += lines[pick(rng)];
    return s;
}

}  // namespace

Site build_site(bool quick) {
    char tmpl[] = "/tmp/jfp-bench.XXXXXX";
    Site site;
    site.dir = mkdtemp(tmpl);
    chmod(site.dir.c_str(), 0755);
    site.store = site.dir + "/history.db";
    site.model = site.dir + "/model.json";
    {
        jfp::SynthOptions so;
        so.jobs = quick ? 20000 : 100000;
        so.seed = 3;
        // The history ends a day or two before today: the jobs below are submitted now, and their history
        // features (hours since the last run, the last failure) must read as on a live cluster, the same
        // whatever day the bench runs. (It began on 2024-01-01 once, and the share of jobs at or above the
        // threshold read 72 %, 64 % and 52 % on three stops: likeliest from those features' ageing.)
        so.days = std::max(14.0, static_cast<double>(so.jobs) / 4000);
        so.start = jfp::format_sacct_time(jfp::naive_local_now() - static_cast<int64_t>((so.days + 1) * 86400)).substr(0, 10);
        jfp::HistoryStore store(site.store, jfp::HistoryStore::Access::ReadWrite);
        jfp::synthesize_into_store(so, store, site.dir + "/h.txt");
        // The model is trained on the same workload on a fixed calendar, long ended: trained on the
        // history above, its size followed the weekday the history began on and how much of it had
        // ended by the run (88 failure trees one day, 57 the next), and every ratio to the walk moved
        // with the calendar. `jfp train` on this workload begun on each weekday of a week in 2026-09,
        // failure + class trees: Mon 87+452, Tue 89+296, Wed 103+396, Thu 78+424, Fri 68+480,
        // Sat 58+236, Sun 59+360. A Wednesday, the median of the seven totals.
        jfp::SynthOptions fixed = so;
        fixed.start = "2026-01-07";
        jfp::HistoryStore trained_on(site.dir + "/trained_on.db", jfp::HistoryStore::Access::ReadWrite);
        jfp::synthesize_into_store(fixed, trained_on, site.dir + "/t.txt");
        jfp::TrainOptions opt;
        opt.rounds = 200;
        opt.early_stopping_rounds = 1000;  // no early stop before 200 rounds; the best round is kept, as at a site
        opt.max_depth = 6;
        opt.nthread = 2;
        opt.kind = "tree";  // the walk's cost is what is measured
        jfp::TrainSummary sum;
        auto bundle = jfp::train_bundle(trained_on, opt, sum);
        jfp::write_bundle(bundle, site.model);
    }
    std::FILE *f = std::fopen((site.dir + "/slurm.conf").c_str(), "w");
    std::fputs("PartitionName=batch Default=YES DefaultTime=60\nPartitionName=gpu DefaultTime=120\nDefMemPerCPU=1000\n", f);
    std::fclose(f);
    write_jfp_conf(site);
    setenv("SLURM_CONF", (site.dir + "/slurm.conf").c_str(), 1);
    return site;
}

void write_jfp_conf(const Site &site, const std::string &extra) {
    std::FILE *f = std::fopen((site.dir + "/jfp.conf.new").c_str(), "w");
    std::fprintf(f, "mode = annotate\nmodel = %s\nstore = %s\nfeature_log = %s/features.db\n%s", site.model.c_str(),
                 site.store.c_str(), site.dir.c_str(), extra.c_str());
    std::fclose(f);
    std::rename((site.dir + "/jfp.conf.new").c_str(), (site.dir + "/jfp.conf").c_str());
}

jfp::SubmitRequest request_of(const JobSpec &s) {
    jfp::SubmitRequest q;
    q.uid = s.uid;
    q.name = s.name;
    q.partition = s.partition;
    q.account = s.account;
    q.comment = s.comment;
    q.script = s.script;
    q.has_script = true;
    q.min_cpus = s.cpus;
    q.min_nodes = s.nodes;
    q.time_limit_min = s.time_min;
    q.mem_mb = static_cast<double>(s.mem);
    return q;
}

Workload make_workload(const Site &site, size_t count) {
    Workload w;
    jfp::HistoryStore store(site.store, jfp::HistoryStore::Access::ReadOnly);
    w.snap = jfp::load_history_snapshot(store);
    std::vector<jfp::JobRecord> recent;
    store.for_each_job([&](jfp::JobRecord &&j) { recent.push_back(std::move(j)); });
    std::mt19937_64 rng(42);
    std::map<std::string, uint32_t> uids;
    w.defaults = jfp::load_slurm_conf(site.dir + "/slurm.conf", nullptr);
    std::uniform_real_distribution<double> logsize(std::log(1024.0), std::log(50 * 1024.0));
    for (size_t i = 0; i < count; ++i) {
        const jfp::JobRecord &r = recent[recent.size() - 1 - (rng() % std::min<size_t>(recent.size(), 20000))];
        JobSpec s;
        s.user = r.user;
        auto [it, fresh] = uids.emplace(r.user, 20000 + static_cast<uint32_t>(uids.size()));
        (void)fresh;
        s.uid = it->second;
        s.name = r.name;
        s.partition = r.partition.empty() ? "batch" : r.partition;
        s.account = r.account;
        s.comment = (rng() % 3 == 0) ? "run with the new namelist | see ticket 1234" : "";
        s.script = make_script(static_cast<size_t>(std::exp(logsize(rng))), rng);
        s.cpus = 1u << (rng() % 7);
        s.nodes = 1 + static_cast<uint32_t>(rng() % 4);
        s.time_min = 10 + static_cast<uint32_t>(rng() % 1440);
        s.mem = 500 + rng() % 64000;
        w.specs.push_back(std::move(s));
    }
    // The store has no UID column for synthetic users: add the mapping the plugin will read.
    {
        jfp::HistoryStore rw(site.store, jfp::HistoryStore::Access::ReadWrite);
        std::string text = "JobIDRaw|User|UID|JobName|Submit|State\n";
        int k = 0;
        for (const auto &s : w.specs)
            text += std::to_string(990000000 + k++) + "|" + s.user + "|" + std::to_string(s.uid) + "|uidmap|2030-01-01T00:00:00|PENDING\n";
        jfp::SacctReader reader({}, [&](jfp::JobRecord &&j) { rw.put_job(j); }, [&](jfp::StepInfo &&st) { rw.put_step(st); });
        auto id = rw.begin_ingest("uid map");
        reader.read_text(text, "uid map");
        rw.finish_ingest(id, reader.report());
    }
    w.snap = jfp::load_history_snapshot(store);
    for (auto &s : w.specs) {
        jfp::JobRequest req = jfp::resolve_request(request_of(s), s.user, w.defaults, &w.snap);
        jfp::build_features(req, w.snap.index.lookup(req), s.x);
    }
    for (const char *k : {"PATH=/usr/local/bin:/usr/bin:/bin:/opt/slurm/bin", "HOME=/home/user", "SHELL=/bin/bash",
                          "LANG=en_US.UTF-8", "TERM=xterm-256color", "USER=user", "LOGNAME=user", "PWD=/scratch/user/run",
                          "MODULEPATH=/opt/modules/compilers:/opt/modules/mpi:/opt/modules/libs:/opt/modules/apps",
                          "LOADEDMODULES=gcc/12.2:openmpi/4.1:hdf5/1.14:netcdf/4.9", "OMP_NUM_THREADS=4",
                          "LD_LIBRARY_PATH=/opt/gcc/12.2/lib64:/opt/openmpi/4.1/lib:/opt/hdf5/1.14/lib:/opt/netcdf/4.9/lib"})
        w.env_strings.emplace_back(k);
    for (int i = 0; w.env_strings.size() < 40; ++i)
        w.env_strings.push_back("SITE_VAR_" + std::to_string(i) + "=" + std::string(40, static_cast<char>('a' + i % 26)));
    for (auto &e : w.env_strings) w.env_ptrs.push_back(e.data());
    return w;
}

// 64 MiB is twice the L3 here. 8 MiB (a quarter of it) left job_submit at 5.7 us; inside slurmctld it reads
// 20-50 us with its walks at 8-25 (docs/performance.md §1), which 64 MiB reproduces: slurmctld's passes
// over its job list, sbatch and the kernel's file work leave little of jfp in any cache.
Evictor::Evictor() {
    const char *env = std::getenv("JFP_BENCH_EVICT_MIB");
    mib_ = env && std::atoi(env) > 0 ? static_cast<size_t>(std::atoi(env)) : 64;
    buf_.resize(mib_ << 20);
}

void Evictor::operator()() {
    volatile char *b = buf_.data();
    for (size_t k = 0; k < buf_.size(); k += 64) b[k] = static_cast<char>(b[k] + 1);
}

}  // namespace hotpath
