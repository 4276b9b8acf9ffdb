"""A program with its own interval timer running (and a user __repr__ in the frame)."""

import signal

from kit import crash_in, log, state_at_exit


def on_alarm(signum, frame):
    log("tick")


signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, 600, 600)


class Price:
    def __repr__(self):
        return "Price(5)"


def timer_state():
    remaining, interval = signal.getitimer(signal.ITIMER_REAL)
    return (f"timer armed {remaining > 0} interval {interval} "
            f"handler ours {signal.getsignal(signal.SIGALRM) is on_alarm}")


def crash():
    price = Price()
    quantity = 0
    return price, 10 / quantity


state_at_exit(timer_state)
crash_in(crash)
