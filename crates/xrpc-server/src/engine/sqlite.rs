//! The embedded SQLite engine (placeholder until the engine lands).
