#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
// Nothing to import: this target only supplies the executable's entry point.
#endif
