/* The enums are in include/FrameworkEnums.h; a C target needs a source file. */
