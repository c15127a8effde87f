package granary.engine.osgi;

import java.util.List;

import granary.api.model.InvalidRequestException;
import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;

import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeProvider;
import org.osgi.service.metatype.ObjectClassDefinition;

/** The metatype description of a policy's PID, from its declaration (the options' names, types, defaults, descriptions). */
final class DeclaredMetaType implements MetaTypeProvider {

    private final PolicyDeclaration declaration;

    DeclaredMetaType(PolicyDeclaration declaration) {
        this.declaration = declaration;
    }

    @Override
    public ObjectClassDefinition getObjectClassDefinition(String id, String locale) {
        return declaration.pid().equals(id) ? new Definition() : null;
    }

    @Override
    public String[] getLocales() {
        return null;   // one description, in English
    }

    private final class Definition implements ObjectClassDefinition {
        @Override
        public String getName() {
            return "Granary " + declaration.name() + " policy";
        }

        @Override
        public String getID() {
            return declaration.pid();
        }

        @Override
        public String getDescription() {
            return declaration.description();
        }

        @Override
        public AttributeDefinition[] getAttributeDefinitions(int filter) {
            if (filter == ObjectClassDefinition.OPTIONAL) {
                return null;   // every option has a default: all are "required" with that default
            }
            List<OptionSpec<?>> options = declaration.options();
            return options.stream().map(Attribute::new).toArray(AttributeDefinition[]::new);
        }

        @Override
        public java.io.InputStream getIcon(int size) {
            return null;
        }
    }

    private final class Attribute implements AttributeDefinition {
        private final OptionSpec<?> option;

        Attribute(OptionSpec<?> option) {
            this.option = option;
        }

        @Override
        public String getName() {
            return option.name();
        }

        @Override
        public String getID() {
            return option.name();
        }

        @Override
        public String getDescription() {
            return option.description();
        }

        @Override
        public int getCardinality() {
            return 0;
        }

        @Override
        public int getType() {
            return switch (option.type()) {
                case FLAG -> AttributeDefinition.BOOLEAN;
                case NUMBER -> AttributeDefinition.LONG;
                case TEXT, CHOICE -> AttributeDefinition.STRING;
            };
        }

        @Override
        public String[] getOptionValues() {
            return option.choices().isEmpty() ? null : option.choices().toArray(String[]::new);
        }

        @Override
        public String[] getOptionLabels() {
            return getOptionValues();
        }

        /** "" when valid, else what is wrong (the same check the policy's settings make). */
        @Override
        public String validate(String value) {
            try {
                option.read(value, declaration.pid());
                return "";
            } catch (InvalidRequestException e) {
                return e.problems().get(0).message();
            }
        }

        @Override
        public String[] getDefaultValue() {
            return new String[] {option.text(option.defaultValue())};
        }
    }
}
