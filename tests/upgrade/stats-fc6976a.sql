-- The statistics as commit fc6976a's service wrote them (controller/service/stats.py then: games without
-- duration_s): three games it recorded, and a jam row added by hand in its schema; sqlite3's .dump.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE games (ended real not null, machine text not null, winner text not null);
INSERT INTO games VALUES(1795808055.609406948,'drnim','machine');
INSERT INTO games VALUES(1795808055.6767981052,'drnim','machine');
INSERT INTO games VALUES(1795808055.7803535461,'drnim','machine');
CREATE TABLE faults (at real not null, machine text not null, kind text not null);
INSERT INTO faults VALUES(1795807000.5,'drnim','jam');
COMMIT;
