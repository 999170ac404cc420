#!/bin/bash
#SBATCH -N 1
export OMP_PLACES_0=cores
export OMP_PLACES_1=cores
export OMP_PLACES_2=cores
export OMP_PLACES_3=cores
export OMP_PLACES_4=cores
export OMP_PLACES_5=cores
export OMP_PLACES_6=cores
export OMP_PLACES_7=cores
export OMP_PLACES_8=cores
export OMP_PLACES_9=cores
export OMP_PLACES_10=cores
export OMP_PLACES_11=cores
export OMP_PLACES_12=cores
export OMP_PLACES_13=cores
export OMP_PLACES_14=cores
export OMP_PLACES_15=cores
export OMP_PLACES_16=cores
export OMP_PLACES_17=cores
export OMP_PLACES_18=cores
export OMP_PLACES_19=cores
export OMP_PLACES_20=cores
export OMP_PLACES_21=cores
export OMP_PLACES_22=cores
export OMP_PLACES_23=cores
export OMP_PLACES_24=cores
export OMP_PLACES_25=cores
export OMP_PLACES_26=cores
export OMP_PLACES_27=cores
export OMP_PLACES_28=cores
export OMP_PLACES_29=cores
export OMP_PLACES_30=cores
export OMP_PLACES_31=cores
export OMP_PLACES_32=cores
export OMP_PLACES_33=cores
export OMP_PLACES_34=cores
export OMP_PLACES_35=cores
export OMP_PLACES_36=cores
export OMP_PLACES_37=cores
export OMP_PLACES_38=cores
export OMP_PLACES_39=cores
export OMP_PLACES_40=cores
export OMP_PLACES_41=cores
export OMP_PLACES_42=cores
export OMP_PLACES_43=cores
export OMP_PLACES_44=cores
export OMP_PLACES_45=cores
export OMP_PLACES_46=cores
export OMP_PLACES_47=cores
export OMP_PLACES_48=cores
export OMP_PLACES_49=cores
export OMP_PLACES_50=cores
export OMP_PLACES_51=cores
export OMP_PLACES_52=cores
export OMP_PLACES_53=cores
export OMP_PLACES_54=cores
export OMP_PLACES_55=cores
export OMP_PLACES_56=cores
export OMP_PLACES_57=cores
export OMP_PLACES_58=cores
export OMP_PLACES_59=cores
srun ./app \
  --in "data.h5" \
  -n 4
:
true 'x y'
: > out.log
"exit" 2;#v2
