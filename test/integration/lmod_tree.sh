# A module tree as a site lays one out for Lmod (its documented hierarchy: Core, then Compiler/NAME/VERSION
# behind each compiler, then MPI/COMPILER/VERSION/NAME/VERSION behind each MPI), for the module-check tests.
# Sourced. make_lmod_tree DIR writes it; DIR/Core is the MODULEPATH a login gives, DIR/Extra a tree only a
# script's `module use` reaches.
make_lmod_tree() {
    local t=$1 f
    mkdir -p "$t"
    # mod PATH [LUA]: a modulefile (PATH relative to the tree, without .lua)
    mod() {
        mkdir -p "$(dirname "$t/$1")"
        printf 'whatis("%s")\n%s\n' "$1" "${2:-}" >"$t/$1.lua"
    }
    mod Core/gcc/12.2.0 "prepend_path(\"MODULEPATH\", \"$t/Compiler/gcc/12.2\")
family(\"compiler\")"
    mod Core/gcc/13.1.0 "prepend_path(\"MODULEPATH\", \"$t/Compiler/gcc/13.1\")
family(\"compiler\")"
    mod Core/python/3.10.12
    mod Core/python/3.11.4
    mod Core/cmake/3.27.7
    mod Core/R/4.3.1
    mod Core/cuda/12.2.0
    mod Core/apps/namd/2.14
    mod Core/anaconda3
    mod Compiler/gcc/12.2/openmpi/4.1.5 "prepend_path(\"MODULEPATH\", \"$t/MPI/gcc/12.2/openmpi/4.1\")
family(\"mpi\")"
    mod Compiler/gcc/12.2/openblas/0.3.24
    mod Compiler/gcc/13.1/openblas/0.3.26
    mod MPI/gcc/12.2/openmpi/4.1/fftw/3.3.10
    mod Extra/mytool/1.0
    # gcc/12.2.0 is the default of gcc, as a site marks it
    printf '#%%Module\nset ModulesVersion "12.2.0"\n' >"$t/Core/gcc/.version"
    find "$t" -type d -exec chmod 755 {} +
    find "$t" -type f -exec chmod 644 {} +
}

# lmod_spider: Lmod's spider, or empty when Lmod is not installed.
lmod_spider() {
    local s
    for s in "${LMOD_DIR:+$LMOD_DIR/spider}" /usr/share/lmod/lmod/libexec/spider; do
        [ -n "$s" ] && [ -x "$s" ] && { echo "$s"; return 0; }
    done
    return 0
}
