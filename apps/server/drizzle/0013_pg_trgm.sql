-- Trigram indexes for the order desk's search (issue 16, decision 028). pg_trgm ships with
-- PostgreSQL (the embedded binaries included) and is a trusted extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
