// A one-line progress bar on stderr, drawn only when stderr is a terminal.
#pragma once

#include <string>

namespace jfp {

class Progress {
public:
    // enabled: the caller's wish; the bar still stays silent when stderr is not a TTY.
    explicit Progress(bool enabled);
    void update(long done, long total, const std::string &what);
    void finish();

private:
    bool on_;
    bool drawn_ = false;
    long last_pct_ = -1;
    double last_draw_ = 0;
};

}  // namespace jfp
