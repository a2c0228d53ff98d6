"""Stopping the processes tests start (the app's server, Chromium, the submission API) without leaving one behind."""

from __future__ import annotations

import subprocess


def stop(process: subprocess.Popen | None, timeout: float = 10) -> None:
    """Terminate a process that is still running, and kill it if it has not ended `timeout` seconds later."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
