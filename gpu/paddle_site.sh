# Sourced by the GPU lease scripts (gpu/run_host_cost.sh, gpu/nccl_check.sh): joins the wheel
# pieces gathered in /tmp/dw (a wheel travels split in .part.NN files, 64 MiB a transfer) and
# installs every wheel there into /tmp/site once.  Returns 1 when pip fails.
install_paddle_site() {
  (cd /tmp/dw && for first in *.whl.part.00; do
     [ -e "$first" ] || continue
     base=${first%.part.00}; cat "$base".part.* > "$base" && rm -f "$base".part.*
   done)
  if [ ! -f /tmp/site/.installed ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site /tmp/dw/*.whl \
      || { echo "install failed"; return 1; }
    touch /tmp/site/.installed
  fi
}
