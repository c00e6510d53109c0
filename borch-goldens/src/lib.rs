//! The golden runner lives in tests/golden/ (cases frozen from real torch).
