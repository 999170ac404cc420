// A script archive and a history store in a temporary directory, for the tests of tools/scripts: scripts
// archived under join tokens, jobs in the store that carry them, and a stand-in for squeue.
#pragma once

#include <sys/stat.h>

#include <string>
#include <string_view>

#include "model/archive/script_archive.h"
#include "model/store/history_store.h"
#include "model/jobs/job_record.h"
#include "model/jobs/outcome.h"
#include "test_support.h"
#include "tools/scripts/archive_paths.h"

namespace jfp::test {

struct ScriptsFixture {
    TempDir dir;
    std::string archive = dir.file("scripts.db");
    std::string db = dir.file("history.db");

    void archive_script(const std::string &token, int64_t submitted, const std::string &script, const std::string &user = "amy",
                        const std::string &name = "sim", const std::string *env = nullptr) {
        ScriptArchive a(archive, ScriptArchive::Access::ReadWrite);
        ArchivedSubmission m;
        m.token = token;
        m.cluster = "c1";
        m.submitted = submitted;
        m.uid = 1000;
        m.user = user;
        m.name = name;
        m.work_dir = "/home/" + user;
        a.begin();
        std::string_view ev = env ? std::string_view(*env) : std::string_view();
        a.put(m, script, env ? &ev : nullptr);
        a.commit();
    }

    void store_job(const std::string &job_id, const std::string &token, int64_t submitted, Outcome outcome,
                   const std::string &state, const std::string &user = "amy", const std::string &name = "sim") {
        HistoryStore s(db, HistoryStore::Access::ReadWrite);
        JobRecord j;
        j.cluster = "c1";
        j.job_key = job_id;
        j.job_id = job_id;
        j.user = user;
        j.name = name;
        j.submit = submitted;
        j.start = submitted + 10;
        j.end = submitted + 100;
        j.outcome = outcome;
        j.state = state;
        j.jfp_token = token;
        auto id = s.begin_ingest("test");
        s.put_job(j);
        s.finish_ingest(id, SacctReadReport{});
    }

    ArchivePaths paths(bool with_store = true) const {
        ArchivePaths p;
        p.archive = archive;
        if (with_store) p.db = db;
        return p;
    }

    // An executable that prints text whatever its arguments (a squeue, a spider).
    std::string program(const std::string &name, const std::string &text) const {
        const std::string path = dir.file(name);
        write_file(dir.file(name + ".out"), text);
        write_file(path, "#!/bin/sh\ncat '" + dir.file(name + ".out") + "'\n");
        ::chmod(path.c_str(), 0755);
        return path;
    }
};

}  // namespace jfp::test
