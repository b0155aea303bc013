# Run one libFuzzer target for SECONDS with a fresh corpus seeded from SEEDS and OWN_SEEDS.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/seeds)
foreach(dir ${SEEDS} ${OWN_SEEDS})
  if(dir AND IS_DIRECTORY ${dir})
    file(GLOB files ${dir}/*.etl)
    foreach(f ${files})
      file(SIZE ${f} sz)
      if(sz GREATER 0)
        get_filename_component(n ${f} NAME)
        # the first 128 KiB: the header buffer and a few more, small enough to mutate quickly
        execute_process(COMMAND python3 -c "import sys; open(sys.argv[1],'wb').write(open(sys.argv[2],'rb').read(131072))"
                        ${WORK}/seeds/${n} ${f})
      endif()
    endforeach()
  endif()
endforeach()
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=131072 -rss_limit_mb=2048 -timeout=20
                        -print_final_stats=1 ${WORK}/corpus ${WORK}/seeds
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer ${FUZZER} failed (exit ${rc}); the crashing input is in ${WORK}")
endif()
