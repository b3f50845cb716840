// msgpackr loads this inside try/catch and falls back to its JavaScript decoder when it throws.
throw new Error("msgpackr-extract is replaced by a stub in snowdb: msgpackr uses its JavaScript decoder");
