cd "/scratch/run"
srun ./sol\
ver --in 'a b' "$X" \\
# note
-n 4
echo "a;
b"
