set pagination off
set confirm off
set logging file /work/main/eval/results/2026-11-26c-hook-path-tracepoint/steps.log
set logging overwrite on
set logging redirect on
set logging enabled on
target remote :27092
set $site = 0xffffffff810ea593
delete
break *$site if ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[0] == 'h' && ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[1] == 'p' && ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[3] == 'g' && $rdx == 0
ignore $bpnum 200
shell touch /work/main/eval/results/2026-11-26c-hook-path-tracepoint/go
set $n = 0
while $n < 3
  continue
  set $k = 0
  while ($k == 0 || $pc != $site + 5) && $k < 20000
    printf "STEP G %d %d %lx\n", $n, $k, $pc
    stepi
    set $k = $k + 1
  end
  set $n = $n + 1
end
delete
break *$site if ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[0] == 'h' && ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[1] == 'p' && ((struct task_struct *)*(unsigned long *)($gs_base + (unsigned long)&current_task))->comm[3] == 'v' && $rdx == 0
ignore $bpnum 200
shell touch /work/main/eval/results/2026-11-26c-hook-path-tracepoint/go
set $n = 0
while $n < 3
  continue
  set $k = 0
  while ($k == 0 || $pc != $site + 5) && $k < 20000
    printf "STEP V %d %d %lx\n", $n, $k, $pc
    stepi
    set $k = $k + 1
  end
  set $n = $n + 1
end
delete
detach
