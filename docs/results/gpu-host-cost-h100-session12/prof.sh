cd .hc_gpu12/AFTER
mkdir -p /tmp/dw; for d in ../../.devwheels/p*; do cp -n "$d"/* /tmp/dw/ 2>/dev/null; done
. gpu/paddle_site.sh; install_paddle_site || exit 1
export PYTHONPATH=/tmp/site OUT=${OUT:-/tmp/o}
for t in AFTER BEFORE; do (cd ../$t && python3 setup.py build_ext --inplace -q >/dev/null 2>&1); done
for t in BEFORE AFTER; do
  TORCHPROXY_TREE=$(cd ../$t && pwd) timeout 200 python3 gpu/rng_profile.py 300 2>&1 | grep -v "^W11" | grep -v "^$"
done 2>&1 | tee $OUT/profile_log.txt
