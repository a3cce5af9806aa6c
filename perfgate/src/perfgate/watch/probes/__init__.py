"""Re-measuring a case: the prober interface and its answer (`prober`), the real prober on
the gate's own machinery (`gate_prober`) and bisection of a confirmed range (`bisect`)."""
