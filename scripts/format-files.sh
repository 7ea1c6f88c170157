# The project's own sources, by kind (sourced by check-format.sh and format.sh).
# Tracked and new (untracked, not ignored) files alike, so a file is checked before its first commit.
# deploy/prebuilt/ holds the built wasm module's glue (Emscripten's output), not a source.
project_files() { git ls-files --cached --others --exclude-standard -- "$@" | grep -v '^deploy/prebuilt/'; }
cpp_files() { project_files 'wasm/*.cpp' 'wasm/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp'; }
js_files() {
  project_files '*.js' '*.mjs' '*.ts' | grep -v -e '^web/explorer/figures/viridis-data.js$' -e '/node_modules/'
}
