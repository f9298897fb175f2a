// The system's SQLite 3 (Debian: libsqlite3-dev), for FederateSQLite.
#include <sqlite3.h>
